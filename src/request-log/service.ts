import type { Account } from '../auth/access';
import { isAdmin } from '../auth/access';
import type { Db, Tx } from '../db/client';
import { claimThenBatches } from '../jobs/ticks';
import { formatOslo } from '../lib/oslo-time';
import { redactUrl, storedBody } from './redact';
import { createRequestLogStore, type NewRequestLogRow, type RequestLogRow } from './store';

export interface RequestLogSettings {
  enabled: boolean;
  /** Rows older than this are pruned. */
  retentionMs: number;
  /** The newest rows kept per key. */
  maxPerKey: number;
  /** Each body is cut to this many bytes (after redaction). */
  bodyBytes: number;
}

/** What the HTTP hooks capture of one request; turned into a row (redacted) when the batch is written. */
export interface CapturedRequest {
  at: Date;
  keyId: string;
  customerNrs: string[];
  /** The scopes of the key that made it (what another key must hold to see it). */
  scopes: string[];
  /** The caller's own credential, redacted wherever it appears. */
  credential: string | undefined;
  method: string;
  url: string;
  status: number;
  durationMs: number;
  requestId: string;
  requestContentType: string | undefined;
  requestBody: unknown;
  responseContentType: string | undefined;
  responseBody: unknown;
}

export interface RequestLogFilter {
  Status?: string;
  Path?: string;
  Method?: string;
  Before?: number;
  Limit?: number;
}

export interface RequestLogEntry {
  Id: number;
  Time: string;
  KeyId: string;
  Method: string;
  Path: string;
  Status: number;
  DurationMs: number;
  RequestId: string;
  RequestContentType: string | null;
  RequestBody: string | null;
  ResponseContentType: string | null;
  ResponseBody: string | null;
}

export interface RequestLogPage {
  Enabled: boolean;
  Entries: RequestLogEntry[];
  /** Pass as `Before` for the next (older) page; null on the last. */
  NextBefore: number | null;
}

/** Rows written per insert, and the most waiting in memory (beyond it, requests go unrecorded). */
const BATCH = 200;
const MAX_PENDING = 5000;
const FLUSH_AFTER_MS = 250;
/** Rows the prune deletes a statement: 10 000 took ~0.15 s in a table of 1 M rows on PostgreSQL. */
const PRUNE_BATCH = 10_000;

export interface RequestLogDeps {
  db: Db;
  settings: RequestLogSettings;
  clock?: () => Date;
}

const entry = (r: RequestLogRow): RequestLogEntry => ({
  Id: r.id,
  Time: formatOslo(r.at),
  KeyId: r.keyId,
  Method: r.method,
  Path: r.url,
  Status: r.status,
  DurationMs: Math.round(r.durationMs * 10) / 10,
  RequestId: r.requestId,
  RequestContentType: r.requestContentType,
  RequestBody: r.requestBody,
  ResponseContentType: r.responseContentType,
  ResponseBody: r.responseBody,
});

function statusRange(status: string): { from: number; to: number } {
  const cls = /^([1-5])xx$/i.exec(status);
  if (cls) return { from: Number(cls[1]) * 100, to: Number(cls[1]) * 100 + 100 };
  return { from: Number(status), to: Number(status) + 1 };
}

export function createRequestLogService(deps: RequestLogDeps) {
  const { db, settings } = deps;
  const clock = deps.clock ?? (() => new Date());
  const store = createRequestLogStore(db);
  let pending: CapturedRequest[] = [];
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();
  // Told when a batch could not be written (the requests it held are dropped, never failed).
  let onError: ((err: unknown) => void) | undefined;

  /** Redaction and capping happen here, off the request's path, before anything is stored. */
  const toRow = (c: CapturedRequest): NewRequestLogRow => {
    const known = c.credential ? [c.credential] : [];
    return {
      at: c.at,
      keyId: c.keyId,
      customerNrs: c.customerNrs,
      scopes: c.scopes,
      method: c.method,
      url: redactUrl(c.url, known),
      status: c.status,
      durationMs: c.durationMs,
      requestId: c.requestId,
      requestContentType: c.requestContentType ?? null,
      requestBody: storedBody(c.requestBody, c.requestContentType, known, settings.bodyBytes),
      responseContentType: c.responseContentType ?? null,
      responseBody: storedBody(c.responseBody, c.responseContentType, known, settings.bodyBytes),
    };
  };

  const writeBatch = async (batch: CapturedRequest[]) => {
    try {
      for (let i = 0; i < batch.length; i += BATCH) {
        await store.insertMany(batch.slice(i, i + BATCH).map(toRow));
      }
    } catch (err) {
      onError?.(err);
    }
  };

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = pending;
    pending = [];
    if (batch.length > 0) writing = writing.then(() => writeBatch(batch));
    return writing;
  }

  return {
    enabled: settings.enabled,

    /** Queues a request for the next batch; never throws, never waits. */
    record(captured: CapturedRequest): void {
      if (!settings.enabled || pending.length >= MAX_PENDING) return;
      pending.push(captured);
      if (pending.length >= BATCH) void flush();
      else if (!timer) {
        timer = setTimeout(() => void flush(), FLUSH_AFTER_MS);
        timer.unref();
      }
    },

    /** Where failed batch writes are reported (the app's log). */
    reportErrorsTo(report: (err: unknown) => void): void {
      onError = report;
    },

    /** Writes what is queued (the read does first, so a caller sees its own latest requests). */
    flush,

    async list(account: Account, filter: RequestLogFilter): Promise<RequestLogPage> {
      await flush();
      const limit = filter.Limit ?? 50;
      const rows = await store.list({
        visibleTo: isAdmin(account)
          ? null
          : { keyId: account.keyId, customerNrs: [...account.customerNrs], scopes: [...account.scopes] },
        ...(filter.Status ? { status: statusRange(filter.Status) } : {}),
        ...(filter.Path ? { path: filter.Path } : {}),
        ...(filter.Method ? { method: filter.Method } : {}),
        ...(filter.Before !== undefined ? { before: filter.Before } : {}),
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      return {
        Enabled: settings.enabled,
        Entries: page.map(entry),
        NextBefore: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
      };
    },

    /**
     * Deletes rows past their age and beyond the count per key, `batch` rows of each a statement, so
     * a backlog of any size goes in statements that each stay well inside the database's statement
     * timeout (one statement for a million rows could pass it, fail every tick and never catch up).
     * `claim` is the prune job's tick (`claimThenBatches`).
     */
    async prune(
      claim?: (tx: Tx) => Promise<void>,
      batch = PRUNE_BATCH,
    ): Promise<{ aged: number; beyond: number }> {
      const total = { aged: 0, beyond: 0 };
      await claimThenBatches(db, claim, async (using) => {
        const s = createRequestLogStore(using);
        const aged = await s.deleteOlderThan(new Date(clock().getTime() - settings.retentionMs), batch);
        const beyond = await s.deleteBeyondPerKey(settings.maxPerKey, batch);
        total.aged += aged;
        total.beyond += beyond;
        return aged === batch || beyond === batch;
      });
      return total;
    },
  };
}

export type RequestLogService = ReturnType<typeof createRequestLogService>;

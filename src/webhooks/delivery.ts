import { randomUUID } from 'node:crypto';
import { and, asc, eq, gt, inArray, isNull, lt, lte, notExists, notInArray, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../db/client';
import { outboxEvents } from '../events/tables';
import { send as defaultSend, type SendOptions, type SendResult } from './send';
import { signatureHeaders } from './signing';
import { webhookAttempts, webhookDeliveries, webhooks } from './tables';
import { createGuardedAgents } from './url-guard';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Delays before retries 1..7 (Svix-like); the last attempt is about 27.6 h after the first. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

export const USER_AGENT = 'Kolli-Webhooks/1.0';

export interface DeliveryOptions {
  db: Db;
  /** KOLLI_WEBHOOK_ALLOW_PRIVATE: private and loopback targets are reachable. */
  allowPrivate: boolean;
  clock?: () => Date;
  /** Delays before each retry; one attempt more than its length is made in all. */
  retryScheduleMs?: readonly number[];
  /** Spread of each delay, as a fraction (0.2 = ±20 %). */
  jitter?: number;
  random?: () => number;
  /** How long a claim is owned; after it another worker may claim the delivery again. */
  leaseMs?: number;
  /** Bound on one attempt, connection to last byte read. */
  timeoutMs?: number;
  /** A registration whose attempts have failed this long without a success is disabled. */
  disableAfterMs?: number;
  /** Longest wait a target's Retry-After can ask for. */
  maxRetryAfterMs?: number;
  /** Identifies this process's claims. */
  owner?: string;
  /** The HTTP client (tests replace it rarely; the default checks addresses at connect time). */
  send?: (options: SendOptions) => Promise<SendResult>;
}

/** A delivery this process owns for one attempt. */
export interface Claimed {
  id: string;
  webhookId: string;
  type: string;
  body: string;
  /** This attempt's number (1 for the first). */
  attempt: number;
  url: string;
  secret: string;
  customHeaders: string | null;
  leaseOwner: string;
}

export interface AttemptOutcome {
  deliveryId: string;
  attempt: number;
  succeeded: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  nextAttemptAt: Date | null;
}

// Any constant; the same in every process. Only one process fans out at a time, so deliveries of
// one registration and shipment are created in event order.
const FANOUT_LOCK = 7_090_003;

const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

export type DeliveryEngine = ReturnType<typeof createDeliveryEngine>;

/** Fan-out, claiming, sending and recording of webhook deliveries; the worker loop drives it. */
export function createDeliveryEngine(options: DeliveryOptions) {
  const db = options.db;
  const clock = options.clock ?? (() => new Date());
  const schedule = options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
  const jitter = options.jitter ?? 0.2;
  const random = options.random ?? Math.random;
  const leaseMs = options.leaseMs ?? 60 * SECOND;
  const timeoutMs = options.timeoutMs ?? 10 * SECOND;
  const disableAfterMs = options.disableAfterMs ?? 5 * DAY;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DAY;
  const owner = options.owner ?? `worker:${randomUUID()}`;
  const agents = createGuardedAgents(options.allowPrivate);
  const sendRequest = options.send ?? defaultSend;

  /**
   * Turns up to `batchSize` outbox events into deliveries, one per matching, enabled, unexpired
   * registration of the same customer. Returns how many events it handled (0 when another process
   * holds the fan-out lock or nothing is waiting).
   */
  async function fanOut(batchSize = 200): Promise<number> {
    const now = clock();
    return db.transaction(async (tx) => {
      const [lock] = rowsOf<{ ok: boolean }>(
        await tx.execute(sql`select pg_try_advisory_xact_lock(${FANOUT_LOCK}) as ok`),
      );
      if (!lock?.ok) return 0;
      const events = await tx
        .select()
        .from(outboxEvents)
        .where(isNull(outboxEvents.fannedOutAt))
        .orderBy(asc(outboxEvents.id))
        .limit(batchSize);
      if (events.length === 0) return 0;
      const customers = [...new Set(events.map((e) => e.customerNr))];
      const registrations = await tx
        .select({
          id: webhooks.id,
          customerNr: webhooks.customerNr,
          eventValue: webhooks.eventValue,
          eventValueType: webhooks.eventValueType,
        })
        .from(webhooks)
        .where(
          and(inArray(webhooks.customerNr, customers), eq(webhooks.enabled, true), gt(webhooks.expires, now)),
        );
      const rows: (typeof webhookDeliveries.$inferInsert)[] = [];
      for (const e of events) {
        const body = JSON.stringify({ type: e.type, timestamp: e.occurredAt.toISOString(), data: e.data });
        for (const w of registrations) {
          // The customer must match for every type: customer-given parcel numbers can repeat
          // across customers, and a webhook never hears about another customer's shipments.
          if (w.customerNr !== e.customerNr) continue;
          const matches =
            w.eventValueType === 3 ||
            (w.eventValueType === 2 && w.eventValue === e.shipmentId) ||
            (w.eventValueType === 1 && e.parcelIds.includes(w.eventValue));
          if (!matches) continue;
          rows.push({
            id: randomUUID(),
            webhookId: w.id,
            eventId: e.id,
            shipmentId: e.shipmentId,
            type: e.type,
            body,
            nextAttemptAt: now,
          });
        }
      }
      for (let i = 0; i < rows.length; i += 1000) {
        await tx
          .insert(webhookDeliveries)
          .values(rows.slice(i, i + 1000))
          .onConflictDoNothing();
      }
      await tx
        .update(outboxEvents)
        .set({ fannedOutAt: now })
        .where(
          inArray(
            outboxEvents.id,
            events.map((e) => e.id),
          ),
        );
      return events.length;
    });
  }

  /**
   * Claims up to `limit` due deliveries, at most one per registration and none of a registration
   * that has an attempt in flight anywhere, skipping rows other processes are claiming
   * (`FOR UPDATE SKIP LOCKED`) and deliveries behind an earlier pending one of the same
   * registration and shipment. A claim is a lease: if this process dies, the delivery is due again
   * once the lease has passed.
   */
  async function claim(
    limit: number,
    busy: { webhookIds?: readonly string[]; origins?: ReadonlySet<string> } = {},
  ): Promise<Claimed[]> {
    if (limit <= 0) return [];
    const now = clock();
    const d = webhookDeliveries;
    const earlier = alias(webhookDeliveries, 'earlier');
    const inFlight = alias(webhookDeliveries, 'in_flight');
    return db.transaction(async (tx) => {
      const candidates = await tx
        .select({
          id: d.id,
          webhookId: d.webhookId,
          type: d.type,
          body: d.body,
          url: webhooks.url,
          secret: webhooks.secret,
          customHeaders: webhooks.customHeaders,
        })
        .from(d)
        .innerJoin(webhooks, eq(webhooks.id, d.webhookId))
        .where(
          and(
            eq(d.status, 'pending'),
            lte(d.nextAttemptAt, now),
            or(isNull(d.leaseUntil), lte(d.leaseUntil, now)),
            eq(webhooks.enabled, true),
            gt(webhooks.expires, now),
            notExists(
              tx
                .select({ one: sql`1` })
                .from(earlier)
                .where(
                  and(
                    eq(earlier.webhookId, d.webhookId),
                    eq(earlier.shipmentId, d.shipmentId),
                    eq(earlier.status, 'pending'),
                    lt(earlier.eventId, d.eventId),
                  ),
                ),
            ),
            notExists(
              tx
                .select({ one: sql`1` })
                .from(inFlight)
                .where(
                  and(
                    eq(inFlight.webhookId, d.webhookId),
                    eq(inFlight.status, 'pending'),
                    gt(inFlight.leaseUntil, now),
                  ),
                ),
            ),
            busy.webhookIds && busy.webhookIds.length > 0
              ? notInArray(d.webhookId, [...busy.webhookIds])
              : undefined,
          ),
        )
        .orderBy(asc(d.nextAttemptAt), asc(d.eventId))
        .limit(limit * 4)
        .for('update', { of: d, skipLocked: true });

      // One per registration and per target origin: a slow target holds one slot, not many.
      const chosen: typeof candidates = [];
      const seenWebhooks = new Set<string>();
      const seenOrigins = new Set(busy.origins ?? []);
      for (const c of candidates) {
        if (chosen.length >= limit) break;
        const origin = originOf(c.url);
        if (seenWebhooks.has(c.webhookId) || seenOrigins.has(origin)) continue;
        seenWebhooks.add(c.webhookId);
        seenOrigins.add(origin);
        chosen.push(c);
      }
      if (chosen.length === 0) return [];
      const updated = await tx
        .update(d)
        .set({
          leaseUntil: new Date(now.getTime() + leaseMs),
          leaseOwner: owner,
          attempts: sql`${d.attempts} + 1`,
        })
        .where(
          inArray(
            d.id,
            chosen.map((c) => c.id),
          ),
        )
        .returning({ id: d.id, attempts: d.attempts });
      const attemptOf = new Map(updated.map((u) => [u.id, u.attempts]));
      return chosen.map((c) => ({ ...c, attempt: attemptOf.get(c.id) ?? 1, leaseOwner: owner }));
    });
  }

  function retryDelay(attempt: number, retryAfterMs: number | null): number | null {
    const base = schedule[attempt - 1];
    if (base === undefined) return null;
    const spread = base * (1 + jitter * (2 * random() - 1));
    return Math.max(spread, Math.min(retryAfterMs ?? 0, maxRetryAfterMs));
  }

  /** Sends one claimed attempt and records its outcome. Never throws for target failures. */
  async function attempt(c: Claimed): Promise<AttemptOutcome> {
    const startedAt = clock();
    let custom: Record<string, string> = {};
    if (c.customHeaders) {
      try {
        custom = JSON.parse(c.customHeaders) as Record<string, string>;
      } catch {
        custom = {};
      }
    }
    const headers = {
      ...custom,
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...signatureHeaders(c.secret, c.id, startedAt, c.body),
    };
    const result: SendResult =
      !options.allowPrivate && c.url.startsWith('http:')
        ? {
            statusCode: null,
            error: 'http targets need KOLLI_WEBHOOK_ALLOW_PRIVATE=1',
            responseBody: null,
            retryAfterMs: null,
            durationMs: 0,
          }
        : await sendRequest({ url: c.url, headers, body: c.body, timeoutMs, agents, now: clock });
    return record(c, startedAt, result);
  }

  async function record(c: Claimed, startedAt: Date, result: SendResult): Promise<AttemptOutcome> {
    const finishedAt = clock();
    const status = result.statusCode;
    const succeeded = status !== null && status >= 200 && status < 300;
    const gone = status === 410;
    const delay = succeeded || gone ? null : retryDelay(c.attempt, result.retryAfterMs);
    const nextAttemptAt = delay === null ? null : new Date(finishedAt.getTime() + delay);
    const error = result.error ?? (succeeded ? null : `HTTP ${status}`);
    const d = webhookDeliveries;
    await db.transaction(async (tx) => {
      await tx.insert(webhookAttempts).values({
        deliveryId: c.id,
        webhookId: c.webhookId,
        attempt: c.attempt,
        startedAt,
        durationMs: result.durationMs,
        statusCode: status,
        error: result.error,
        responseBody: result.responseBody,
        succeeded,
        nextAttemptAt,
      });
      const updated = await tx
        .update(d)
        .set({
          status: nextAttemptAt ? 'pending' : succeeded ? 'succeeded' : 'failed',
          nextAttemptAt: nextAttemptAt ?? sql`${d.nextAttemptAt}`,
          leaseUntil: null,
          leaseOwner: null,
          lastStatusCode: status,
          lastError: error,
          completedAt: nextAttemptAt ? null : finishedAt,
        })
        // Only while this claim still owns the delivery: after a lost lease another worker does.
        .where(and(eq(d.id, c.id), eq(d.leaseOwner, c.leaseOwner), eq(d.attempts, c.attempt)))
        .returning({ id: d.id });
      if (updated.length === 0) return;
      if (succeeded) {
        await tx.update(webhooks).set({ failingSince: null }).where(eq(webhooks.id, c.webhookId));
        return;
      }
      if (gone) {
        await disable(tx, c.webhookId, finishedAt, 'The target answered 410 Gone.');
        return;
      }
      const [w] = await tx
        .update(webhooks)
        .set({
          failingSince: sql`coalesce(${webhooks.failingSince}, ${startedAt.toISOString()}::timestamptz)`,
        })
        .where(eq(webhooks.id, c.webhookId))
        .returning({ failingSince: webhooks.failingSince });
      if (w?.failingSince && finishedAt.getTime() - w.failingSince.getTime() >= disableAfterMs) {
        await disable(tx, c.webhookId, finishedAt, 'Deliveries failed for 5 days.');
      }
    });
    return {
      deliveryId: c.id,
      attempt: c.attempt,
      succeeded,
      statusCode: status,
      error,
      durationMs: result.durationMs,
      nextAttemptAt,
    };
  }

  async function disable(
    tx: Parameters<Parameters<Db['transaction']>[0]>[0],
    webhookId: string,
    at: Date,
    reason: string,
  ) {
    await tx
      .update(webhooks)
      .set({ enabled: false, disabledAt: at, disabledReason: reason })
      .where(and(eq(webhooks.id, webhookId), eq(webhooks.enabled, true)));
  }

  /**
   * Gives up pending deliveries of disabled or expired registrations (an expired registration
   * delivers nothing) and, when asked, deletes history older than `retainMs`.
   */
  async function sweep(retainMs?: number): Promise<void> {
    const now = clock().toISOString();
    await db.execute(sql`
      update webhook_deliveries d
         set status = 'failed', completed_at = ${now}::timestamptz, lease_until = null, lease_owner = null,
             last_error = case when w.enabled then 'registration expired' else 'registration disabled' end
        from webhooks w
       where w.id = d.webhook_id and d.status = 'pending'
         and (d.lease_until is null or d.lease_until <= ${now}::timestamptz)
         and (not w.enabled or w.expires <= ${now}::timestamptz)`);
    if (retainMs !== undefined) {
      const before = new Date(clock().getTime() - retainMs).toISOString();
      await db.execute(sql`delete from webhook_attempts where started_at < ${before}::timestamptz`);
      await db.execute(
        sql`delete from webhook_deliveries where status <> 'pending' and completed_at < ${before}::timestamptz`,
      );
      await db.execute(
        sql`delete from outbox_events where fanned_out_at is not null and created_at < ${before}::timestamptz`,
      );
    }
  }

  /** Creates a `webhook.test` delivery already claimed by the caller, to attempt at once. */
  async function claimTest(w: {
    id: string;
    url: string;
    secret: string;
    customHeaders: string | null;
  }): Promise<Claimed> {
    const now = clock();
    const id = randomUUID();
    const body = JSON.stringify({
      type: 'webhook.test',
      timestamp: now.toISOString(),
      data: { WebhookId: w.id, Message: 'A test message from Kolli.' },
    });
    const leaseOwner = `api:${randomUUID()}`;
    await db.insert(webhookDeliveries).values({
      id,
      webhookId: w.id,
      type: 'webhook.test',
      body,
      attempts: 1,
      nextAttemptAt: now,
      leaseUntil: new Date(now.getTime() + leaseMs),
      leaseOwner,
    });
    return {
      id,
      webhookId: w.id,
      type: 'webhook.test',
      body,
      attempt: 1,
      url: w.url,
      secret: w.secret,
      customHeaders: w.customHeaders,
      leaseOwner,
    };
  }

  function close() {
    agents.http.destroy();
    agents.https.destroy();
  }

  return { owner, fanOut, claim, attempt, sweep, claimTest, close };
}

export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

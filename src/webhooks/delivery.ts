import { randomUUID } from 'node:crypto';
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { outboxEvents } from '../events/tables';
import { send as defaultSend, type SendOptions, type SendResult } from './send';
import { signatureHeaders } from './signing';
import { webhookAttempts, webhookDeliveries, webhooks } from './tables';
import { createGuardedAgents } from './url-guard';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Delays before retries 1..7 (Svix-like). Without jitter the last attempt comes 27 h 35 min after the
 * first; with the default ±10 % jitter never earlier than 24.8 h, so failures are retried for at
 * least 24 h (CONTRACT §10).
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

/** Spread of each retry delay (±10 %), so targets that fail together are not retried together. */
export const DEFAULT_JITTER = 0.1;

/** Bound on one attempt, connection to last byte read. */
export const DEFAULT_TIMEOUT_MS = 10 * SECOND;

export const USER_AGENT = 'Kolli-Webhooks/1.0';

export interface DeliveryOptions {
  db: Db;
  /** KOLLI_WEBHOOK_ALLOW_PRIVATE: private and loopback targets are reachable. */
  allowPrivate: boolean;
  clock?: () => Date;
  /** Delays before each retry; one attempt more than its length is made in all. */
  retryScheduleMs?: readonly number[];
  /** Spread of each delay, as a fraction (0.1 = ±10 %). */
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

const RETENTION_BATCH = 5000;

// Any constant; the same in every process. Only one process fans out at a time, so deliveries of
// one registration and shipment are created in event order.
const FANOUT_LOCK = 7_090_003;

const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;
const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;
const list = (values: readonly (string | number)[]) =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  );

export type DeliveryEngine = ReturnType<typeof createDeliveryEngine>;

/** Fan-out, claiming, sending and recording of webhook deliveries; the worker loop drives it. */
export function createDeliveryEngine(options: DeliveryOptions) {
  const db = options.db;
  const clock = options.clock ?? (() => new Date());
  const schedule = options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
  const jitter = options.jitter ?? DEFAULT_JITTER;
  const random = options.random ?? Math.random;
  const leaseMs = options.leaseMs ?? 60 * SECOND;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const disableAfterMs = options.disableAfterMs ?? 5 * DAY;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DAY;
  const owner = options.owner ?? `worker:${randomUUID()}`;
  const agents = createGuardedAgents(options.allowPrivate);
  const sendRequest = options.send ?? defaultSend;

  /**
   * Turns up to `batchSize` outbox events into deliveries: one per event and matching, enabled,
   * unexpired registration of the event's customer (type 3 any event of the customer, type 2 events
   * of that shipment, type 1 events naming that parcel). The pair is unique, so an event is never
   * delivered twice to one registration. Returns how many events it handled (0 when another
   * process holds the fan-out lock or nothing is waiting).
   */
  async function fanOut(batchSize = 200): Promise<number> {
    const now = clock();
    return db.transaction(async (tx) => {
      const [lock] = rowsOf<{ ok: boolean }>(
        await tx.execute(sql`select pg_try_advisory_xact_lock(${FANOUT_LOCK}) as ok`),
      );
      if (!lock?.ok) return 0;
      const events = await tx
        .select({
          id: outboxEvents.id,
          type: outboxEvents.type,
          shipmentId: outboxEvents.shipmentId,
          data: outboxEvents.data,
          occurredAt: outboxEvents.occurredAt,
        })
        .from(outboxEvents)
        .where(sql`${outboxEvents.fannedOutAt} is null`)
        .orderBy(outboxEvents.id)
        .limit(batchSize);
      if (events.length === 0) return 0;
      const ids = list(events.map((e) => e.id));
      // Matching in SQL, per event (LATERAL keeps the plan to index probes on (customer_nr,
      // event_value_type, event_value) whatever the statistics say), so a customer with many
      // per-parcel registrations costs lookups, not a scan per event. A registration hears the
      // events written after it was created (both times are the database's).
      const live = sql`w.enabled and w.expires > ${ts(now)} and w.created_at <= e.created_at`;
      const pairs = rowsOf<{ event_id: string; webhook_id: string }>(
        await tx.execute(sql`
          select e.id::text as event_id, m.id as webhook_id
            from outbox_events e
            cross join lateral (
              select w.id from webhooks w
               where w.customer_nr = e.customer_nr and w.event_value_type = 3 and ${live}
              union all
              select w.id from webhooks w
               where w.customer_nr = e.customer_nr and w.event_value_type = 2
                 and w.event_value = e.shipment_id and ${live}
              union all
              -- One equality probe per parcel, and none at all for a customer without parcel
              -- registrations (the EXISTS is a one-time filter per event).
              select w.id
                from unnest(e.parcel_ids) as p(parcel_id)
                cross join lateral (
                  select w.id from webhooks w
                   where w.customer_nr = e.customer_nr and w.event_value_type = 1
                     and w.event_value = p.parcel_id and ${live}
                  offset 0 -- a fence: probe per parcel, never a hash of all the customer's registrations
                ) w
               where exists (select 1 from webhooks x
                              where x.customer_nr = e.customer_nr and x.event_value_type = 1)
            ) m
           where e.id in (${ids})`),
      );
      const byEvent = new Map(events.map((e) => [e.id, e]));
      const rows: (typeof webhookDeliveries.$inferInsert)[] = [];
      const bodies = new Map<number, string>();
      const seen = new Set<string>();
      for (const p of pairs) {
        const e = byEvent.get(Number(p.event_id));
        if (!e || seen.has(`${p.event_id} ${p.webhook_id}`)) continue;
        seen.add(`${p.event_id} ${p.webhook_id}`);
        let body = bodies.get(e.id);
        if (body === undefined) {
          body = JSON.stringify({ type: e.type, timestamp: e.occurredAt.toISOString(), data: e.data });
          bodies.set(e.id, body);
        }
        rows.push({
          id: randomUUID(),
          webhookId: p.webhook_id,
          eventId: e.id,
          shipmentId: e.shipmentId,
          type: e.type,
          body,
          nextAttemptAt: now,
        });
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
   * registration and shipment (events of one shipment go out in order). Registrations take turns:
   * each offers only its oldest due delivery, so a backlog of one target never hides another's.
   * A claim is a lease: if this process dies, the delivery is due again once the lease has passed.
   */
  async function claim(limit: number, busy: { webhookIds?: Iterable<string> } = {}): Promise<Claimed[]> {
    if (limit <= 0) return [];
    const now = ts(clock());
    const busyIds = [...(busy.webhookIds ?? [])];
    const notBusy: SQL = busyIds.length > 0 ? sql`and h.webhook_id not in (${list(busyIds)})` : sql``;
    return db.transaction(async (tx) => {
      const candidates = rowsOf<{
        id: string;
        webhook_id: string;
        type: string;
        body: string;
        url: string;
        secret: string;
        custom_headers: string | null;
      }>(
        await tx.execute(sql`
          with recursive hooks(webhook_id) as (
            -- Registrations with pending deliveries, one index descent each (a skip scan), so the
            -- cost follows the number of registrations with work, not the size of any backlog.
            (select webhook_id from webhook_deliveries where status = 'pending' order by webhook_id limit 1)
            union all
            select (select d.webhook_id from webhook_deliveries d
                     where d.status = 'pending' and d.webhook_id > h.webhook_id
                     order by d.webhook_id limit 1)
              from hooks h
             where h.webhook_id is not null
          ),
          heads as (
            -- Each registration offers its oldest due delivery that no earlier one of the same
            -- shipment is waiting before, unless it has an attempt in flight.
            select c.id, c.next_attempt_at, c.event_id
              from hooks h
              join webhooks w on w.id = h.webhook_id
              cross join lateral (
                select d.id, d.next_attempt_at, d.event_id
                  from webhook_deliveries d
                 where d.webhook_id = h.webhook_id and d.status = 'pending'
                   and d.next_attempt_at <= ${now}
                   and (d.lease_until is null or d.lease_until <= ${now})
                   and (d.shipment_id is null or not exists (
                         select 1 from webhook_deliveries e
                          where e.webhook_id = d.webhook_id and e.shipment_id = d.shipment_id
                            and e.status = 'pending' and e.event_id < d.event_id))
                 order by d.next_attempt_at, d.event_id nulls first, d.id
                 limit 1
              ) c
             where w.enabled and w.expires > ${now}
               ${notBusy}
               and not exists (
                     select 1 from webhook_deliveries f
                      where f.webhook_id = h.webhook_id and f.lease_until > ${now} and f.status = 'pending')
          )
          select d.id, d.webhook_id, d.type, d.body, w.url, w.secret, w.custom_headers
            from webhook_deliveries d
            join webhooks w on w.id = d.webhook_id
           where d.id in (select id from heads order by next_attempt_at, event_id nulls first, id limit ${limit})
             and d.status = 'pending' and (d.lease_until is null or d.lease_until <= ${now})
           for update of d skip locked`),
      );
      if (candidates.length === 0) return [];
      const d = webhookDeliveries;
      const updated = await tx
        .update(d)
        .set({
          leaseUntil: new Date(clock().getTime() + leaseMs),
          leaseOwner: owner,
          attempts: sql`${d.attempts} + 1`,
        })
        .where(
          inArray(
            d.id,
            candidates.map((c) => c.id),
          ),
        )
        .returning({ id: d.id, attempts: d.attempts });
      const attemptOf = new Map(updated.map((u) => [u.id, u.attempts]));
      return candidates.map((c) => ({
        id: c.id,
        webhookId: c.webhook_id,
        type: c.type,
        body: c.body,
        url: c.url,
        secret: c.secret,
        customHeaders: c.custom_headers,
        attempt: attemptOf.get(c.id) ?? 1,
        leaseOwner: owner,
      }));
    });
  }

  /** The wait before the retry after failed attempt `attempt`, or null when none follows. */
  function retryDelay(attempt: number, retryAfterMs: number | null): number | null {
    const base = schedule[attempt - 1];
    if (base === undefined) return null;
    const spread = base * (1 + jitter * (2 * random() - 1));
    return Math.round(Math.max(spread, Math.min(retryAfterMs ?? 0, maxRetryAfterMs)));
  }

  /** Sends one claimed attempt and records its outcome. Never throws for target failures. */
  async function attempt(c: Claimed): Promise<AttemptOutcome> {
    const startedAt = clock();
    let result: SendResult;
    try {
      const custom = c.customHeaders ? (JSON.parse(c.customHeaders) as Record<string, string>) : {};
      const headers = {
        ...custom,
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        ...signatureHeaders(c.secret, c.id, startedAt, c.body),
      };
      result =
        !options.allowPrivate && c.url.startsWith('http:')
          ? failure('http targets need KOLLI_WEBHOOK_ALLOW_PRIVATE=1')
          : await sendRequest({ url: c.url, headers, body: c.body, timeoutMs, agents, now: clock });
    } catch (err) {
      // A registration stored before a rule tightened (a header Node refuses, a bad secret): record
      // the failure instead of losing the delivery or stopping the worker.
      result = failure(err instanceof Error ? err.message : 'could not send');
    }
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
    const recorded = await db.transaction(async (tx) => {
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
      if (updated.length === 0) {
        // The registration was deleted meanwhile (nothing to record), or the lease was lost.
        const [still] = await tx.select({ id: d.id }).from(d).where(eq(d.id, c.id));
        if (!still) return false;
      }
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
        nextAttemptAt: updated.length > 0 ? nextAttemptAt : null,
      });
      if (updated.length === 0) return false;
      if (succeeded) {
        await tx.update(webhooks).set({ failingSince: null }).where(eq(webhooks.id, c.webhookId));
        return true;
      }
      if (gone) {
        await disable(tx, c.webhookId, finishedAt, 'The target answered 410 Gone.');
        return true;
      }
      const [w] = await tx
        .update(webhooks)
        .set({ failingSince: sql`coalesce(${webhooks.failingSince}, ${ts(startedAt)})` })
        .where(eq(webhooks.id, c.webhookId))
        .returning({ failingSince: webhooks.failingSince });
      if (w?.failingSince && finishedAt.getTime() - w.failingSince.getTime() >= disableAfterMs) {
        await disable(tx, c.webhookId, finishedAt, 'Deliveries failed for 5 days.');
      }
      return true;
    });
    return {
      deliveryId: c.id,
      attempt: c.attempt,
      succeeded,
      statusCode: status,
      error,
      durationMs: result.durationMs,
      nextAttemptAt: recorded ? nextAttemptAt : null,
    };
  }

  /** Disables a registration and gives up its pending deliveries (none is in flight but ours). */
  async function disable(tx: Tx, webhookId: string, at: Date, reason: string) {
    await tx
      .update(webhooks)
      .set({ enabled: false, disabledAt: at, disabledReason: reason, updatedAt: at })
      .where(and(eq(webhooks.id, webhookId), eq(webhooks.enabled, true)));
    await tx.execute(sql`
      update webhook_deliveries
         set status = 'failed', completed_at = ${ts(at)}, lease_until = null, lease_owner = null,
             last_error = coalesce(last_error || '; ', '') || 'registration disabled'
       where webhook_id = ${webhookId} and status = 'pending'
         and (lease_until is null or lease_until <= ${ts(at)})`);
  }

  /**
   * Gives up pending deliveries of disabled or expired registrations (an expired registration
   * delivers nothing) and, when asked, deletes delivery history and fanned-out outbox rows older
   * than `retainMs`.
   */
  async function sweep(retainMs?: number | null): Promise<void> {
    const at = clock();
    const now = ts(at);
    await db.execute(sql`
      update webhook_deliveries d
         set status = 'failed', completed_at = ${now}, lease_until = null, lease_owner = null,
             last_error = case when w.enabled then 'registration expired' else 'registration disabled' end
        from webhooks w
       where w.id = d.webhook_id and d.status = 'pending'
         and (d.lease_until is null or d.lease_until <= ${now})
         and (not w.enabled or w.expires <= ${now})`);
    if (retainMs !== undefined && retainMs !== null) {
      const before = ts(new Date(at.getTime() - retainMs));
      // In batches, so no statement holds many locks or runs long; attempts go with their delivery.
      await deleteInBatches(
        sql`delete from webhook_deliveries where id in (
              select id from webhook_deliveries
               where status <> 'pending' and completed_at < ${before} limit ${RETENTION_BATCH})
            returning id`,
      );
      await deleteInBatches(
        sql`delete from outbox_events where id in (
              select id from outbox_events
               where fanned_out_at is not null and created_at < ${before} limit ${RETENTION_BATCH})
            returning id`,
      );
    }
  }

  /**
   * VACUUM (ANALYZE) of the tables the delivery work churns. PostgreSQL's autovacuum does this on
   * its own; embedded PGlite runs no autovacuum, so its worker calls this now and then.
   */
  async function vacuum(): Promise<void> {
    await db.execute(sql`vacuum (analyze) webhook_deliveries, webhook_attempts, webhooks, outbox_events`);
  }

  async function deleteInBatches(statement: SQL): Promise<void> {
    for (;;) {
      const deleted = rowsOf<{ id: unknown }>(await db.execute(statement));
      if (deleted.length < RETENTION_BATCH) return;
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

  /** Closes the pooled connections to targets. */
  function close() {
    agents.http.destroy();
    agents.https.destroy();
  }

  return { owner, fanOut, claim, attempt, retryDelay, sweep, vacuum, claimTest, close };
}

const failure = (error: string): SendResult => ({
  statusCode: null,
  error,
  responseBody: null,
  retryAfterMs: null,
  durationMs: 0,
});

import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db, DbOrTx, Tx } from '../../db/client';
import { webhookAttempts, webhookDeliveries, webhooks } from '../tables';

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

export type NewDelivery = typeof webhookDeliveries.$inferInsert;
export type NewAttempt = typeof webhookAttempts.$inferInsert;

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

/** Takes the fan-out lock for the transaction; false when another process holds it. */
export async function tryFanOutLock(tx: Tx): Promise<boolean> {
  const [lock] = rowsOf<{ ok: boolean }>(
    await tx.execute(sql`select pg_try_advisory_xact_lock(${FANOUT_LOCK}) as ok`),
  );
  return lock?.ok === true;
}

/**
 * The (event, registration) pairs of the outbox events `events` (the events domain's subquery,
 * `matchableEvents`: id, customer_nr, shipment_id, parcel_ids, created_at): every matching, enabled, unexpired
 * registration of the event's customer (type 3 any event of the customer, type 2 events of that
 * shipment, type 1 events naming that parcel). A pair may come more than once.
 */
export async function matchingRegistrations(
  tx: Tx,
  events: SQL,
  now: Date,
): Promise<{ event_id: string; webhook_id: string }[]> {
  // Matching in SQL, per event (LATERAL keeps the plan to index probes on (customer_nr,
  // event_value_type, event_value) whatever the statistics say), so a customer with many
  // per-parcel registrations costs lookups, not a scan per event. A registration hears the
  // events written since it last became live (`listening_since`; both times are the database's).
  // The events come as the events domain's subquery, so they are matched in this same statement.
  const live = sql`w.enabled and w.expires > ${ts(now)} and w.listening_since <= e.created_at`;
  return rowsOf<{ event_id: string; webhook_id: string }>(
    await tx.execute(sql`
      select e.id::text as event_id, m.id as webhook_id
        from (${events}) e
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
        ) m`),
  );
}

/**
 * Of the registrations `ids`, those still there, each held (`FOR KEY SHARE`) until the transaction
 * ends: a delete of one waits for it, and one deleted meanwhile is not answered. Taken before any
 * delivery row is touched, in the order a delete takes them (registration, then its deliveries by
 * cascade), so a delete and a worker never deadlock, and a delivery is never inserted for a
 * registration that is gone (a foreign-key violation).
 */
export async function holdRegistrations(tx: Tx, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await tx
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(inArray(webhooks.id, [...ids]))
    .orderBy(asc(webhooks.id))
    .for('key share');
  return new Set(rows.map((r) => r.id));
}

/** Inserts deliveries, skipping any (event, registration) pair that already has one. */
export async function insertDeliveries(tx: Tx, rows: readonly NewDelivery[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) {
    await tx
      .insert(webhookDeliveries)
      .values(rows.slice(i, i + 1000))
      .onConflictDoNothing();
  }
}

/**
 * Claims up to `limit` due deliveries, at most one per registration and none of a registration
 * that has an attempt in flight anywhere, skipping rows other processes are claiming
 * (`FOR UPDATE SKIP LOCKED`) and deliveries behind an earlier pending one of the same
 * registration and shipment (events of one shipment go out in order). Registrations take turns:
 * each offers only its oldest due delivery, so a backlog of one target never hides another's.
 * Customers take turns too: none has more than `share` attempts in flight across the fleet, and
 * the claim takes each customer's first head before anyone's second, so one customer's many slow
 * registrations hold a few slots, not all of them. (Not per target host: many customers' targets on
 * one integration platform's host are the common case, and a host share would throttle them all.)
 * The claim is a lease to `owner` until `leaseUntil`, and counts as an attempt.
 */
/** The advisory lock whose holder claims: one claim at a time across the fleet. */
export const CLAIM_TURN = 'webhook_deliveries.claim';

export async function claimDue(
  db: Db,
  claim: {
    limit: number;
    at: Date;
    /** Registrations to pass over (this process has an attempt of theirs in flight). */
    busyIds: readonly string[];
    /** Attempts in flight at once per customer, across the fleet. */
    share: number;
    owner: string;
    leaseUntil: () => Date;
  },
): Promise<Claimed[]> {
  const now = ts(claim.at);
  const notBusy: SQL =
    claim.busyIds.length > 0 ? sql`and h.webhook_id not in (${list(claim.busyIds)})` : sql``;
  // A registration's head's place in line: the oldest due first.
  const turn = sql`next_attempt_at, event_id nulls first, id`;
  return db.transaction(async (tx) => {
    // Claims across the fleet take turns: each counts the customer's attempts in flight, and two
    // counting at once from one snapshot had put 9–11 in flight against a share of 8. One claim is
    // one statement and one update, so the turns are short.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${CLAIM_TURN}))`);
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
          select c.id, c.next_attempt_at, c.event_id, w.customer_nr
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
        ),
        flying as (
          -- Attempts in flight anywhere, per customer (few rows: a lease is cleared when its
          -- attempt is recorded).
          select w.customer_nr, count(*) as n
            from webhook_deliveries f
            join webhooks w on w.id = f.webhook_id
           where f.lease_until > ${now} and f.status = 'pending'
           group by w.customer_nr
        ),
        loads as (
          -- What claiming each head would make of its customer's attempts in flight.
          select h.*, coalesce(f.n, 0) + row_number() over (partition by h.customer_nr order by ${turn}) as load
            from heads h
            left join flying f on f.customer_nr = h.customer_nr
        )
        select d.id, d.webhook_id, d.type, d.body, w.url, w.secret, w.custom_headers
          from webhook_deliveries d
          join webhooks w on w.id = d.webhook_id
         where d.id in (select id from loads
                         where load <= ${claim.share}
                         order by load, ${turn}
                         limit ${claim.limit})
           and d.status = 'pending' and (d.lease_until is null or d.lease_until <= ${now})
         for update of d skip locked`),
    );
    if (candidates.length === 0) return [];
    const d = webhookDeliveries;
    const updated = await tx
      .update(d)
      .set({
        leaseUntil: claim.leaseUntil(),
        leaseOwner: claim.owner,
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
      leaseOwner: claim.owner,
    }));
  });
}

/**
 * Inserts a `webhook.test` delivery claimed by its creator, unless its registration has an attempt
 * in flight or its customer already has `share` (the claim's rules, so a burst of tests cannot
 * multiply connections). Tests of one registration take turns on its row; `gone` when the
 * registration was deleted meanwhile.
 */
export async function insertTestDelivery(
  db: Db,
  row: NewDelivery & { leaseUntil: Date },
  share: number,
): Promise<'inserted' | 'busy' | 'gone'> {
  return db.transaction(async (tx) => {
    const [held] = await tx
      .select({ id: webhooks.id })
      .from(webhooks)
      .where(eq(webhooks.id, row.webhookId))
      .for('update');
    // Deleted since the caller read it (or while this waited for its row).
    if (!held) return 'gone';
    const [load] = rowsOf<{ registration: number; customer: number }>(
      await tx.execute(sql`
        select count(*) filter (where f.webhook_id = t.id)::int as registration,
               count(*) filter (where w.customer_nr = t.customer_nr)::int as customer
          from webhooks t, webhook_deliveries f
          join webhooks w on w.id = f.webhook_id
         where t.id = ${row.webhookId} and f.lease_until > now() and f.status = 'pending'`),
    );
    if (load && (load.registration > 0 || load.customer >= share)) return 'busy';
    await tx.insert(webhookDeliveries).values(row);
    return 'inserted';
  });
}

/**
 * Records the end of an attempt on its delivery, only while claim `c` still owns it (after a lost
 * lease another worker does). Returns whether it did.
 */
export async function finishAttempt(
  tx: Tx,
  c: Claimed,
  outcome: {
    status: 'pending' | 'succeeded' | 'failed';
    nextAttemptAt: Date | null;
    statusCode: number | null;
    error: string | null;
    completedAt: Date | null;
  },
): Promise<boolean> {
  const d = webhookDeliveries;
  const updated = await tx
    .update(d)
    .set({
      status: outcome.status,
      nextAttemptAt: outcome.nextAttemptAt ?? sql`${d.nextAttemptAt}`,
      leaseUntil: null,
      leaseOwner: null,
      lastStatusCode: outcome.statusCode,
      lastError: outcome.error,
      completedAt: outcome.completedAt,
    })
    .where(and(eq(d.id, c.id), eq(d.leaseOwner, c.leaseOwner), eq(d.attempts, c.attempt)))
    .returning({ id: d.id });
  return updated.length > 0;
}

/** Whether the delivery still exists (its registration may have been deleted meanwhile). */
export async function deliveryExists(tx: Tx, id: string): Promise<boolean> {
  const [still] = await tx
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.id, id));
  return still !== undefined;
}

export async function insertAttempt(tx: Tx, row: NewAttempt): Promise<void> {
  await tx.insert(webhookAttempts).values(row);
}

/** A success: the registration is failing no more. */
export async function clearFailing(tx: Tx, webhookId: string): Promise<void> {
  await tx.update(webhooks).set({ failingSince: null }).where(eq(webhooks.id, webhookId));
}

/** A failure: the registration is failing since `since` unless it was already. Returns since when. */
export async function markFailing(tx: Tx, webhookId: string, since: Date): Promise<Date | null> {
  const [w] = await tx
    .update(webhooks)
    .set({ failingSince: sql`coalesce(${webhooks.failingSince}, ${ts(since)})` })
    .where(eq(webhooks.id, webhookId))
    .returning({ failingSince: webhooks.failingSince });
  return w?.failingSince ?? null;
}

/** Disables a registration and gives up its pending deliveries (none is in flight but ours). */
export async function disableRegistration(
  tx: Tx,
  webhookId: string,
  at: Date,
  reason: string,
): Promise<void> {
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

/** Gives up pending deliveries of disabled or expired registrations (none in flight). */
export async function giveUpDead(db: DbOrTx, at: Date): Promise<void> {
  const now = ts(at);
  await db.execute(sql`
    update webhook_deliveries d
       set status = 'failed', completed_at = ${now}, lease_until = null, lease_owner = null,
           last_error = case when w.enabled then 'registration expired' else 'registration disabled' end
      from webhooks w
     where w.id = d.webhook_id and d.status = 'pending'
       and (d.lease_until is null or d.lease_until <= ${now})
       and (not w.enabled or w.expires <= ${now})`);
}

/**
 * Deletes completed deliveries (and with them their attempts) older than `before`, in batches of
 * `batchSize`, so no statement holds many locks or runs long.
 */
export async function deleteCompletedBefore(db: Db, before: Date, batchSize: number): Promise<void> {
  for (;;) {
    const deleted = rowsOf<{ id: unknown }>(
      await db.execute(sql`
        delete from webhook_deliveries where id in (
          select id from webhook_deliveries
           where status <> 'pending' and completed_at < ${ts(before)} limit ${batchSize})
        returning id`),
    );
    if (deleted.length < batchSize) return;
  }
}

/** Planner statistics of the tables the claim reads. */
export async function analyzeDeliveries(db: Db): Promise<void> {
  await db.execute(sql`analyze webhook_deliveries, webhooks`);
}

/** How many retained deliveries are pending, succeeded or failed (metrics). */
export async function countByStatus(db: DbOrTx): Promise<Record<string, number>> {
  const rows = await db
    .select({ status: webhookDeliveries.status, count: sql<number>`count(*)::int` })
    .from(webhookDeliveries)
    .groupBy(webhookDeliveries.status);
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.count)]));
}

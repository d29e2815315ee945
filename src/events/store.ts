import { inArray, type SQL, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { outboxEvents } from './tables';

export type NewOutboxEvent = typeof outboxEvents.$inferInsert;

/** An outbox event as the webhook fan-out first reads it: without its `data` (see `eventData`). */
export interface PendingEvent {
  id: number;
  type: string;
  shipmentId: string | null;
  occurredAt: Date;
}

// Namespace of the per-shipment advisory locks (the two-key form keeps them apart from other locks).
const SHIPMENT_LOCK_SPACE = 7_090_002;

/**
 * One statement that takes the transaction-scoped advisory lock of each shipment in `lockIds` (sorted
 * here, so transactions touching several shipments take them in one order and do not deadlock) and
 * then inserts `rows`, in the order given, returning their ids. The locks are an InitPlan of the
 * insert, so they are held before any id is drawn. Callers run it alone (`insertEvents`) or as a CTE
 * of their own write (booking's one-statement booking).
 */
export function insertEventsStatement(rows: readonly NewOutboxEvent[], lockIds: readonly string[]): SQL {
  const payload = JSON.stringify(
    rows.map((r, ord) => ({
      ord,
      type: r.type,
      customer_nr: r.customerNr,
      shipment_id: r.shipmentId ?? null,
      parcel_ids: r.parcelIds ?? [],
      invoice_nr: r.invoiceNr ?? null,
      data: r.data,
      occurred_at: r.occurredAt instanceof Date ? r.occurredAt.toISOString() : null,
    })),
  );
  const locks = JSON.stringify([...new Set(lockIds)].sort());
  return sql`insert into outbox_events (type, customer_nr, shipment_id, parcel_ids, invoice_nr, data, occurred_at)
    select r.type, r.customer_nr, r.shipment_id, r.parcel_ids, r.invoice_nr, r.data, coalesce(r.occurred_at, now())
      from json_to_recordset(${payload}::json)
        as r(ord int, type text, customer_nr text, shipment_id text, parcel_ids text[], invoice_nr text, data json, occurred_at timestamptz)
     where (select count(pg_advisory_xact_lock(${SHIPMENT_LOCK_SPACE}::int, hashtext(l.id)))
              from (select json_array_elements_text(${locks}::json) as id order by 1) l) >= 0
     order by r.ord
    returning id`;
}

/** Locks the shipments and inserts outbox rows in the caller's transaction, in one statement; ids in the order given. */
export async function insertEvents(
  tx: DbOrTx,
  rows: readonly NewOutboxEvent[],
  lockIds: readonly string[],
): Promise<number[]> {
  const result = (await tx.execute(insertEventsStatement(rows, lockIds))) as unknown as {
    rows: { id: number | string }[];
  };
  // Identity values are drawn in insertion order, which is the order given.
  return result.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/**
 * Up to `limit` events not fanned out yet, in id order, without their `data`: most events no
 * registration hears, and the data of a large shipment's events (every parcel number) is the bulk of
 * the row, so it is read only for the events that have deliveries (`eventData`).
 */
export function pendingEvents(tx: DbOrTx, limit: number): Promise<PendingEvent[]> {
  return tx
    .select({
      id: outboxEvents.id,
      type: outboxEvents.type,
      shipmentId: outboxEvents.shipmentId,
      occurredAt: outboxEvents.occurredAt,
    })
    .from(outboxEvents)
    .where(sql`${outboxEvents.fannedOutAt} is null`)
    .orderBy(outboxEvents.id)
    .limit(limit);
}

/** An outbox row as the fan-out delivers it: the columns its `data` is composed from (`eventData`). */
export type DeliveredRow = Pick<
  typeof outboxEvents.$inferSelect,
  'id' | 'customerNr' | 'shipmentId' | 'parcelIds' | 'invoiceNr' | 'data'
>;

/** The rows of the events `ids`, with what their delivered `data` is made of. */
export function deliveredRows(tx: DbOrTx, ids: readonly number[]): Promise<DeliveredRow[]> {
  return tx
    .select({
      id: outboxEvents.id,
      customerNr: outboxEvents.customerNr,
      shipmentId: outboxEvents.shipmentId,
      parcelIds: outboxEvents.parcelIds,
      invoiceNr: outboxEvents.invoiceNr,
      data: outboxEvents.data,
    })
    .from(outboxEvents)
    .where(inArray(outboxEvents.id, [...ids]));
}

/**
 * The events `ids` as a subquery of the columns a subscriber matches on (`id`, `customer_nr`,
 * `shipment_id`, `parcel_ids`, `created_at`), for a consumer that matches them inside its own
 * statement (webhooks' fan-out joins them to its registrations): this domain still names its table.
 */
export function matchableEvents(ids: readonly number[]): SQL {
  return sql`select id, customer_nr, shipment_id, parcel_ids, created_at from outbox_events
    where ${inArray(outboxEvents.id, [...ids])}`;
}

/** Marks events as fanned out (their deliveries exist). */
export async function markFannedOut(tx: DbOrTx, ids: readonly number[], at: Date): Promise<void> {
  await tx
    .update(outboxEvents)
    .set({ fannedOutAt: at })
    .where(inArray(outboxEvents.id, [...ids]));
}

/**
 * Deletes fanned-out events created before `before`, in batches of `batchSize`, so no statement
 * holds many locks or runs long.
 */
export async function deleteFannedOutBefore(db: Db, before: Date, batchSize: number): Promise<void> {
  for (;;) {
    const { rows } = (await db.execute(sql`
      delete from outbox_events where id in (
        select id from outbox_events
         where fanned_out_at is not null and created_at < ${before.toISOString()}::timestamptz
         limit ${batchSize})
      returning id`)) as unknown as { rows: unknown[] };
    if (rows.length < batchSize) return;
  }
}

/** The events not fanned out yet and the creation time of the oldest (metrics; the partial index). */
export async function backlog(db: DbOrTx): Promise<{ count: number; oldest: Date | null }> {
  const [row] = await db
    .select({
      count: sql<number>`count(*)::int`,
      oldest: sql<string | null>`min(${outboxEvents.createdAt})::text`,
    })
    .from(outboxEvents)
    .where(sql`${outboxEvents.fannedOutAt} is null`);
  return { count: Number(row?.count ?? 0), oldest: row?.oldest ? new Date(row.oldest) : null };
}

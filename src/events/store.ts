import { inArray, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { outboxEvents } from './tables';

export type NewOutboxEvent = typeof outboxEvents.$inferInsert;

/** An outbox event as the webhook fan-out reads it. */
export interface PendingEvent {
  id: number;
  type: string;
  shipmentId: string | null;
  data: Record<string, unknown>;
  occurredAt: Date;
}

// Namespace of the per-shipment advisory locks (the two-key form keeps them apart from other locks).
const SHIPMENT_LOCK_SPACE = 7_090_002;

/**
 * Takes the transaction-scoped advisory lock of each shipment, in the order given (the caller sorts,
 * so transactions touching several shipments take them in one order and do not deadlock).
 */
export async function lockShipments(tx: DbOrTx, shipmentIds: readonly string[]): Promise<void> {
  for (const shipmentId of shipmentIds) {
    await tx.execute(sql`select pg_advisory_xact_lock(${SHIPMENT_LOCK_SPACE}::int, hashtext(${shipmentId}))`);
  }
}

/** Inserts outbox rows in the caller's transaction; returns their ids in the order given. */
export async function insertEvents(tx: DbOrTx, rows: NewOutboxEvent[]): Promise<number[]> {
  const inserted = await tx.insert(outboxEvents).values(rows).returning({ id: outboxEvents.id });
  return inserted.map((r) => r.id);
}

/** Up to `limit` events not fanned out yet, in id order. */
export function pendingEvents(tx: DbOrTx, limit: number): Promise<PendingEvent[]> {
  return tx
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
    .limit(limit);
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

/** VACUUM (ANALYZE) of the outbox (embedded PGlite runs no autovacuum). */
export async function vacuumOutbox(db: Db): Promise<void> {
  await db.execute(sql`vacuum (analyze) outbox_events`);
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

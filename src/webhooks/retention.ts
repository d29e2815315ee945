import type { Db } from '../db/client';
import { deleteFannedOutBefore } from '../events/outbox';
import { analyzeDeliveries, deleteCompletedBefore, giveUpDead } from './store/deliveries';

const RETENTION_BATCH = 5000;

/**
 * Gives up pending deliveries of disabled or expired registrations (an expired registration
 * delivers nothing) and, when asked, deletes delivery history and fanned-out outbox rows older
 * than `retainMs`.
 */
export async function sweep(db: Db, at: Date, retainMs?: number | null): Promise<void> {
  await giveUpDead(db, at);
  if (retainMs !== undefined && retainMs !== null) {
    const before = new Date(at.getTime() - retainMs);
    // Attempts go with their delivery.
    await deleteCompletedBefore(db, before, RETENTION_BATCH);
    await deleteFannedOutBefore(db, before, RETENTION_BATCH);
  }
}

/**
 * ANALYZE of the delivery tables, for embedded PGlite, which has no autovacuum and so gathers no
 * statistics on its own: without them the claim's plan checked every pending delivery against
 * every other (60–75 ms a claim at 1 000 deliveries, against 10 ms), and on PGlite a query holds
 * the API's own thread.
 */
export const analyze = (db: Db): Promise<void> => analyzeDeliveries(db);

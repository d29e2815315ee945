import type { Database } from '../db/client';
import { vacuumDatabase } from '../db/vacuum';
import { type JobLog, type ScheduledJob, scheduleOncePerTick } from './ticks';

/**
 * Embedded PGlite runs no autovacuum: without this, every table that deletes or updates rows (the
 * request log, idempotency records, shipments, webhook deliveries, the outbox, ...) would keep its
 * dead rows' space and grow for as long as the sandbox runs. A VACUUM (ANALYZE) of the whole
 * database, hourly, frees that space for reuse and keeps the planner's statistics current.
 * PostgreSQL's own autovacuum does this on a server, so there nothing is scheduled.
 */
export function scheduleEmbeddedVacuum(database: Database, log: JobLog, holder: string): ScheduledJob | null {
  if (database.kind !== 'pglite') return null;
  return scheduleOncePerTick({
    job: 'embedded-vacuum',
    // At 53 minutes past every hour (Europe/Oslo cron with seconds), away from the other jobs.
    expression: '0 53 * * * *',
    holder,
    log,
    run: async (_tick, claim) => {
      await database.db.transaction(claim);
      // VACUUM cannot run inside a transaction: after the claim has committed.
      await vacuumDatabase(database);
    },
  });
}

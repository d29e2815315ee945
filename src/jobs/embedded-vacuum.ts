import { sql } from 'drizzle-orm';
import type { Database } from '../db/client';
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

/**
 * VACUUM (ANALYZE) of every table of the database, the system catalogues included (ANALYZE itself
 * rewrites pg_statistic), one table a statement: PGlite runs in the server's own thread, so requests
 * get their turn between tables instead of waiting for the whole database.
 */
export async function vacuumDatabase(database: Database): Promise<void> {
  const { rows } = (await database.db.execute(
    sql`select oid::regclass::text as name from pg_class where relkind in ('r', 'm') order by oid`,
  )) as unknown as { rows: { name: string }[] };
  for (const { name } of rows) await database.db.execute(sql.raw(`vacuum (analyze) ${name}`));
}

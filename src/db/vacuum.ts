import { sql } from 'drizzle-orm';
import type { Database } from './client';

/**
 * VACUUM (ANALYZE) of every table of the database, the system catalogues included (ANALYZE itself
 * rewrites pg_statistic), one table a statement: PGlite runs in the server's own thread, so requests
 * get their turn between tables instead of waiting for the whole database. Outside a transaction
 * (VACUUM refuses one).
 */
export async function vacuumDatabase(database: Database): Promise<void> {
  const { rows } = (await database.db.execute(
    sql`select oid::regclass::text as name from pg_class where relkind in ('r', 'm') order by oid`,
  )) as unknown as { rows: { name: string }[] };
  for (const { name } of rows) await database.db.execute(sql.raw(`vacuum (analyze) ${name}`));
}

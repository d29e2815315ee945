import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { projectPath } from '../lib/project-root';

const migrationsFolder = projectPath('src', 'db', 'migrations');

// Any constant works; it only has to be the same in every process of every host.
const MIGRATION_LOCK = 7_090_001;

/** Applies the committed migrations to an embedded database (one process owns it). */
export async function migratePgliteClient(client: PGlite): Promise<void> {
  await migratePglite(drizzlePglite(client), { migrationsFolder });
}

/**
 * Applies the committed migrations on PostgreSQL. A session advisory lock on one connection makes
 * processes that start together take turns, so each migration runs once.
 */
export async function migratePostgres(url: string): Promise<void> {
  // Its own connection, without the pool's query timeout: waiting for another host's migration
  // lock, or a long backfill, is not an outage.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migratePg(drizzlePg(client), { migrationsFolder });
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    await client.end();
  }
}

import type { PGlite } from '@electric-sql/pglite';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { projectPath } from '../lib/project-root';

const migrationsFolder = projectPath('src', 'db', 'migrations');

// Any constant works; it only has to be the same in every process of every host.
const MIGRATION_LOCK = 7_090_001;

/** How long a process waits for a PostgreSQL connection (its pool's too) before failing. */
export const CONNECT_TIMEOUT_MS = 5000;

/** The URL as an operator may read it in a log: without its password or query parameters. */
function withoutSecrets(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return '(unparsable)';
  }
}

/** Applies the committed migrations to an embedded database (one process owns it). */
export async function migratePgliteClient(client: PGlite): Promise<void> {
  await migratePglite(drizzlePglite(client), { migrationsFolder });
}

/**
 * True when the database holds every committed migration: Drizzle's own record of the latest one
 * applied is at least as new as the newest in the folder. False when it cannot tell (a new database).
 */
async function isCurrent(client: pg.Client): Promise<boolean> {
  const newest = Math.max(...readMigrationFiles({ migrationsFolder }).map((m) => m.folderMillis));
  try {
    const { rows } = await client.query<{ at: string | null }>(
      'select max(created_at)::text as at from drizzle.__drizzle_migrations',
    );
    return rows[0]?.at != null && Number(rows[0].at) >= newest;
  } catch {
    return false;
  }
}

/**
 * Applies the committed migrations on PostgreSQL. A session advisory lock on one connection makes
 * processes that start together take turns, so each migration runs once. A database that is already
 * current takes no lock at all: behind a transaction pooler (pgbouncer) the lock and its unlock would
 * run on different server connections, and the lock, left held, would stop every later start.
 */
export async function migratePostgres(url: string, connectTimeoutMs = CONNECT_TIMEOUT_MS): Promise<void> {
  // Its own connection, without the pool's query timeout: waiting for another host's migration
  // lock, or a long backfill, is not an outage. Connecting is bounded, though: this is every
  // process's first contact with the database, and a server that accepts the connection and never
  // answers (or a black-holed address) kept the start waiting forever, without a line in the log.
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
  await client.connect().catch((err: unknown) => {
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(`Cannot connect to the database at DATABASE_URL ${withoutSecrets(url)}: ${why}`, {
      cause: err,
    });
  });
  try {
    if (await isCurrent(client)) return;
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await migratePg(drizzlePg(client), { migrationsFolder });
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    }
  } finally {
    await client.end();
  }
}

import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { lockDataDir } from './data-dir-lock';
import { CONNECT_TIMEOUT_MS, migratePgliteClient, migratePostgres } from './migrate';
import { releaseClientsOnFailure } from './pool-transactions';

/**
 * The Drizzle handle every store uses; the same type for PGlite and node-postgres. It knows no
 * domain: each store imports its own domain's tables (Drizzle needs a schema only for its
 * relational query API, which Kolli does not use).
 */
export type Db = PgDatabase<PgQueryResultHKT>;
/** A handle inside `db.transaction(...)`; stores accept either. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export interface Database {
  readonly db: Db;
  readonly kind: 'pglite' | 'postgres';
  /** The embedded engine itself, when it is one (tests dump and load its files). */
  readonly pglite?: PGlite;
  /** Throws when the database cannot answer a trivial query. */
  ping(): Promise<void>;
  /** Applies the committed migrations (safe to call from several processes at once). */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** `postgres://…`; null opens the embedded PGlite. */
  url: string | null;
  /** Where PGlite keeps its files (`<dataDir>/pgdata`); null keeps them in memory (tests). */
  dataDir: string | null;
  /** Connection pool size for PostgreSQL. */
  poolSize?: number;
  /** PostgreSQL: a query unanswered this long fails as an outage; 0 waits forever. */
  queryTimeoutMs?: number;
  /** PostgreSQL: the server cancels a statement running this long (`statement_timeout`); 0: never. */
  statementTimeoutMs?: number;
  /** Extra PGlite options (tests start from a migrated dump with `loadDataDir`). */
  pglite?: PGliteOptions;
}

/**
 * Creates `dir` (and any missing parent) for the server's user alone, and takes an existing one back
 * to that: PGlite writes its WAL and catalogue readable by everyone, and they hold webhook secrets and
 * the token-signing secret in clear. PostgreSQL itself refuses a data directory others can enter.
 */
function ownerOnly(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.url) return openPostgres(options.url, options);
  const dataDir = options.dataDir === null ? undefined : join(options.dataDir, 'pgdata');
  if (dataDir) ownerOnly(dataDir);
  const unlock = options.dataDir === null ? () => {} : lockDataDir(options.dataDir);
  const client = await PGlite.create({ ...options.pglite, ...(dataDir ? { dataDir } : {}) }).catch((err) => {
    unlock();
    throw err;
  });
  const db = drizzlePglite(client) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    pglite: client,
    ping: async () => {
      await client.query('select 1');
    },
    migrate: () => migratePgliteClient(client),
    close: () => client.close().finally(unlock),
  };
}

function openPostgres(url: string, options: OpenOptions): Database {
  const { poolSize = 10, queryTimeoutMs = 0, statementTimeoutMs = 0 } = options;
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Sent with the connection's start-up parameters (no statement of its own): the server cancels a
    // statement past it (SQLSTATE 57014, a 503), freeing its locks and its connection at once.
    ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
    // A server that stops answering without closing the connection (a black-holed network) fails
    // the query after this long, as an outage (503), instead of holding the request forever.
    ...(queryTimeoutMs > 0 ? { query_timeout: queryTimeoutMs } : {}),
    keepAlive: true,
  });
  // An idle client whose server went away emits 'error'; the pool drops it and reconnects later.
  pool.on('error', () => {});
  // A checked-out client whose session ends (server restart, pg_terminate_backend, failover) emits
  // 'error' too, with no pool listener: without one the process would crash. Its query rejects anyway.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = drizzlePg(pool) as unknown as Db;
  releaseClientsOnFailure(db);
  return {
    db,
    kind: 'postgres',
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    migrate: () => migratePostgres(url),
    close: () => pool.end(),
  };
}

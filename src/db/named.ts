import { createHash } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { DbOrTx } from './client';

const dialect = new PgDialect();

/** Names given so far, by statement text; a text beyond the cap runs unnamed (see `executeNamed`). */
const names = new Map<string, string>();
const MAX_NAMES = 64;

const isPlain = (value: unknown) =>
  value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/**
 * `db.execute(query)` as a named prepared statement: PostgreSQL parses and plans the text once per
 * connection and keeps the plan, instead of on every call. For the statements a hot path runs
 * thousands of times a second with only the values changing (a booking's write): parsing and planning
 * its CTE was about 0.3 ms of the database's CPU per booking, as much as running it. The name is the
 * text's hash, so equal texts share one statement and different texts never collide; a path whose text
 * varies without bound would fill the server's memory, so past `MAX_NAMES` texts run unnamed. The
 * embedded database ignores the name. With pgbouncer in transaction mode, use 1.21 or newer with
 * `max_prepared_statements` (docs/scaling.md). Only statements whose values are all plain (text,
 * numbers, booleans, null) are named: pg converts other values after sending the Parse, and a
 * conversion that throws leaves the name unusable on that connection.
 */
export async function executeNamed<T = unknown>(db: DbOrTx, query: SQL): Promise<T> {
  const { sql, params } = dialect.sqlToQuery(query);
  const plain = params.every(isPlain);
  let name = plain ? names.get(sql) : undefined;
  if (name === undefined && plain && names.size < MAX_NAMES) {
    name = `kolli_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    names.set(sql, name);
  }
  return (await db._.session.prepareQuery({ sql, params }, undefined, name, false).execute()) as T;
}

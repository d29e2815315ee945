import pg from 'pg';
import type { Database } from '../src/db/client';

/**
 * Counts the database round trips a piece of work makes: every statement sent to PostgreSQL
 * (`pg.Client#query`, BEGIN and COMMIT included), or on the embedded database every `query`/`exec`
 * of the PGlite client and of its transactions (BEGIN and COMMIT counted as the two they would be).
 * Work running concurrently on the same database is counted too: count on an idle app. `names` holds
 * each statement's prepared-statement name (PostgreSQL; the embedded database is never told one).
 */
export async function countRoundTrips(
  database: Database,
  work: () => Promise<unknown>,
): Promise<{ count: number; statements: string[]; names: (string | undefined)[] }> {
  const statements: string[] = [];
  const names: (string | undefined)[] = [];
  const note = (q: unknown) => {
    const text = typeof q === 'string' ? q : ((q as { text?: string })?.text ?? String(q));
    statements.push(text.replace(/\s+/g, ' ').trim().slice(0, 120));
    names.push(typeof q === 'object' && q !== null ? (q as { name?: string }).name : undefined);
  };
  const restore: (() => void)[] = [];
  const wrap = <T extends object>(target: T, name: keyof T & string) => {
    const original = target[name] as unknown as (...args: unknown[]) => unknown;
    const hadOwn = Object.hasOwn(target, name);
    (target as Record<string, unknown>)[name] = function (this: unknown, q: unknown, ...rest: unknown[]) {
      note(q);
      return original.call(this, q, ...rest);
    };
    restore.push(() => {
      if (hadOwn) (target as Record<string, unknown>)[name] = original;
      else delete (target as Record<string, unknown>)[name];
    });
  };
  if (database.pglite) {
    const client = database.pglite;
    wrap(client, 'query');
    wrap(client, 'exec');
    const transaction = client.transaction;
    client.transaction = function <T>(this: typeof client, fn: Parameters<typeof transaction<T>>[0]) {
      note('begin');
      return transaction
        .call(this, (tx) => {
          wrap(tx, 'query');
          wrap(tx, 'exec');
          return fn(tx);
        })
        .finally(() => note('commit'));
    } as typeof transaction;
    restore.push(() => {
      client.transaction = transaction;
    });
  } else {
    wrap(pg.Client.prototype, 'query');
  }
  try {
    await work();
  } finally {
    for (const undo of restore.reverse()) undo();
  }
  return { count: statements.length, statements, names };
}

/** A new shipment's one statement (shipment, parcels, outbox events: booking/store/shipments.ts). */
export const isNewShipmentWrite = (statement: string): boolean =>
  /^with s as \(insert into shipments/i.test(statement);

/**
 * Of counted `statements`, a new shipment's one-statement writes, the serial draws
 * (src/booking/store/serials.ts), the BEGINs, and the rest (the request log's batched inserts, cache
 * refreshes), for work that books new shipments.
 */
export function bookingStatements(statements: readonly string[]) {
  const writes = statements.filter(isNewShipmentWrite).length;
  const draws = statements.filter((s) => s.includes('nextval')).length;
  const begins = statements.filter((s) => /^begin\b/i.test(s)).length;
  return { writes, draws, begins, others: statements.length - writes - draws - begins };
}

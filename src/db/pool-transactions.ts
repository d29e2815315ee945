import { sql } from 'drizzle-orm';
import { NodePgSession, NodePgTransaction } from 'drizzle-orm/node-postgres';
import type pg from 'pg';

type Transaction = NodePgSession<Record<string, never>, never>['transaction'];

/** What the replacement reads of drizzle's session (private in its types). */
interface SessionFields {
  client: Pick<pg.Pool, 'connect'>;
  dialect: unknown;
  schema: unknown;
  options: unknown;
  transaction: Transaction;
}

/**
 * drizzle-orm 0.45 (node-postgres) checks a client out of the pool and runs BEGIN before the
 * try/finally that gives it back (drizzle-team/drizzle-orm#6023 and #6241, open upstream): a BEGIN on
 * a connection that died meanwhile (a failover, `pg_terminate_backend`) leaks the client for good,
 * and after as many such failures as the pool has clients every request waits 5 s for one and
 * answers 503, until a restart. These are drizzle's steps with BEGIN inside the guard, and a client
 * whose BEGIN or ROLLBACK failed is destroyed rather than pooled again. The error thrown is the
 * transaction's own.
 */
export function releaseClientsOnFailure(db: object): void {
  const session = (db as { session: SessionFields }).session;
  session.transaction = (async (transaction, config) => {
    const client = (await session.client.connect()) as pg.PoolClient;
    const own = new NodePgSession(
      client,
      session.dialect as never,
      session.schema as never,
      session.options as never,
    );
    const tx = new NodePgTransaction(session.dialect as never, own, session.schema as never);
    let broken: Error | undefined;
    const markBroken = (err: Error) => {
      broken = err;
      throw err;
    };
    try {
      // Kolli sets no isolation level or access mode: a config would be a new use, refused loudly.
      if (config) throw new Error('transaction options are not supported here');
      await tx.execute(sql`begin`).catch(markBroken);
      try {
        const result = await transaction(tx as never);
        await tx.execute(sql`commit`);
        return result;
      } catch (error) {
        await tx.execute(sql`rollback`).catch((err: Error) => {
          broken = err;
        });
        throw error;
      }
    } finally {
      client.release(broken);
    }
  }) as Transaction;
}

import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { describe, expect, test } from 'vitest';
import { releaseClientsOnFailure } from './pool-transactions';

/** A pool of one fake client whose statements fail when `fails` says so; it counts its releases. */
function fakePool(fails: (text: string) => boolean) {
  const statements: string[] = [];
  const released: (Error | undefined)[] = [];
  const client = {
    query: async (q: string | { text: string }) => {
      const text = typeof q === 'string' ? q : q.text;
      statements.push(text);
      if (fails(text)) throw new Error('Connection terminated unexpectedly');
      return { rows: [], rowCount: 0, command: text, fields: [] };
    },
    release: (err?: Error) => {
      released.push(err);
    },
  };
  // drizzle treats a client whose class is named …Pool as a pool: one checkout per transaction.
  class FakePool {
    connect = async () => client;
  }
  const db = drizzle(new FakePool() as never);
  releaseClientsOnFailure(db);
  return { db, statements, released };
}

describe('pooled transactions give their client back on every path', () => {
  test('a BEGIN on a dead connection: the client is destroyed, not kept out of the pool', async () => {
    const { db, released, statements } = fakePool((t) => t.startsWith('begin'));
    await expect(db.transaction(async () => 'never')).rejects.toThrow();
    expect(statements).toEqual(['begin']);
    expect(released).toHaveLength(1);
    expect(released[0]).toBeInstanceOf(Error);
  });

  test('a failed transaction rolls back and is pooled again; a failed ROLLBACK destroys the client', async () => {
    const healthy = fakePool(() => false);
    await expect(
      healthy.db.transaction(async () => {
        throw new Error('the rule broke');
      }),
    ).rejects.toThrow('the rule broke');
    expect(healthy.statements).toEqual(['begin', 'rollback']);
    expect(healthy.released).toEqual([undefined]);

    const dead = fakePool((t) => t === 'rollback');
    await expect(
      dead.db.transaction(async () => {
        throw new Error('the rule broke');
      }),
    ).rejects.toThrow('the rule broke');
    expect(dead.released).toHaveLength(1);
    expect(dead.released[0]).toBeInstanceOf(Error);
  });

  test('a transaction that commits returns its result and its client once', async () => {
    const { db, released, statements } = fakePool(() => false);
    const done = await db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      return 'done';
    });
    expect(done).toBe('done');
    expect(statements).toEqual(['begin', 'select 1', 'commit']);
    expect(released).toEqual([undefined]);
  });
});

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { createTestDatabase } from '../../test/helpers';
import type { Database } from './client';

let database: Database & { dispose(): Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.dispose());

/** `executeNamed` from a fresh module: its own names, whatever another test has named. */
async function freshExecuteNamed() {
  vi.resetModules();
  return (await import('./named')).executeNamed;
}

const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;
const onPostgres = () => database.kind === 'postgres';

/** The named statements of the transaction's connection (PostgreSQL keeps them per connection). */
const prepared = async (tx: Parameters<Parameters<Database['db']['transaction']>[0]>[0]) =>
  rowsOf<{ name: string; statement: string }>(
    await tx.execute(sql`select name, statement from pg_prepared_statements where name like 'kolli\\_%'`),
  );

test('a statement answers as execute does, and on PostgreSQL one text is one prepared statement', async () => {
  const executeNamed = await freshExecuteNamed();
  await database.db.transaction(async (tx) => {
    const before = onPostgres() ? (await prepared(tx)).length : 0;
    for (const n of [1, 2, 3]) {
      const rows = rowsOf<{ v: number }>(await executeNamed(tx, sql`select ${n}::int + 40 as v`));
      expect(rows).toEqual([{ v: n + 40 }]);
    }
    const other = rowsOf<{ w: string }>(await executeNamed(tx, sql`select ${'x'}::text || 'y' as w`));
    expect(other).toEqual([{ w: 'xy' }]);
    if (!onPostgres()) return;
    const after = await prepared(tx);
    // Three runs of one text, one of another: two statements, each named by its text's hash.
    expect(after.length - before).toBe(2);
    expect(after.map((p) => p.statement)).toEqual(
      expect.arrayContaining(['select $1::int + 40 as v', "select $1::text || 'y' as w"]),
    );
  });
});

test.runIf(process.env.KOLLI_TEST_DB === 'postgres')(
  'texts beyond the cap run unnamed, so a text that varies cannot fill the server with statements',
  async () => {
    const executeNamed = await freshExecuteNamed();
    await database.db.transaction(async (tx) => {
      for (let i = 0; i < 80; i++) {
        const rows = rowsOf<{ v: number }>(await executeNamed(tx, sql.raw(`select ${i} as v`)));
        expect(rows).toEqual([{ v: i }]);
      }
      const named = (await prepared(tx)).filter((p) => /^select \d+ as v$/.test(p.statement)).length;
      expect(named).toBe(64);
    });
  },
);

test.runIf(process.env.KOLLI_TEST_DB === 'postgres')(
  'a value pg cannot convert fails that call alone: the same text with good values still runs',
  async () => {
    const executeNamed = await freshExecuteNamed();
    await database.db.transaction(async (tx) => {
      const text = (value: unknown) => sql`select ${value}::json as v`;
      await expect(executeNamed(tx, text({ n: 1n }))).rejects.toThrow();
      const rows = rowsOf<{ v: unknown }>(await executeNamed(tx, text(JSON.stringify({ n: 1 }))));
      expect(rows).toEqual([{ v: { n: 1 } }]);
    });
  },
);

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestDatabase } from '../../test/helpers';
import { vacuumDatabase } from './vacuum';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.dispose());

test('the vacuum lets a table reuse the space of the rows it deleted', async () => {
  const { db } = database;
  await db.execute(sql`create table vacuum_probe (id int, filler text)`);
  const fill = () =>
    db.execute(sql`insert into vacuum_probe select g, repeat('x', 200) from generate_series(1, 2000) g`);
  const size = async () => {
    const { rows } = (await db.execute(sql`select pg_relation_size('vacuum_probe') as n`)) as unknown as {
      rows: { n: string }[];
    };
    return Number(rows[0]?.n);
  };
  await fill();
  const filled = await size();
  await db.execute(sql`delete from vacuum_probe`);
  await vacuumDatabase(database);
  await fill();
  // Without the vacuum the second fill would go into new pages, doubling the table.
  expect(await size()).toBeLessThanOrEqual(filled);
});

test('a vacuum asked for while a transaction is open runs once it has ended (VACUUM refuses a transaction block)', async () => {
  const { db } = database;
  let vacuumed: Promise<void> | undefined;
  await db.transaction(async (tx) => {
    await tx.execute(sql`select 1`);
    // On PGlite's one connection the vacuum must wait for the transaction, not run inside it.
    vacuumed = vacuumDatabase(database);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await tx.execute(sql`select 1`);
  });
  await expect(vacuumed).resolves.toBeUndefined();
});

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestDatabase } from '../../test/helpers';
import { scheduleEmbeddedVacuum, vacuumDatabase } from './embedded-vacuum';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.dispose());

const silent = { info() {}, error() {} };

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

test('only the embedded database gets the hourly vacuum (a server has autovacuum)', async () => {
  const job = scheduleEmbeddedVacuum(database, silent, 'test-host');
  expect(job !== null).toBe(database.kind === 'pglite');
  await job?.stop();
});

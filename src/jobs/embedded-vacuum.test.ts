import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestDatabase } from '../../test/helpers';
import { scheduleEmbeddedVacuum } from './embedded-vacuum';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.dispose());

const silent = { info() {}, error() {} };

test('only the embedded database gets the hourly vacuum (a server has autovacuum)', async () => {
  const job = scheduleEmbeddedVacuum(database, silent, 'test-host');
  expect(job !== null).toBe(database.kind === 'pglite');
  await job?.stop();
});

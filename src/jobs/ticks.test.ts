import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestDatabase } from '../../test/helpers';
import { jobTicks } from './tables';
import { claimTick, TICKS_KEPT_DAYS, TickTaken } from './ticks';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.dispose());

const day = 86_400_000;
const claim = (job: string, tick: Date) =>
  database.db.transaction((tx) => claimTick(tx, job, tick, 'test-host'));
const ticksOf = async (job: string) =>
  (await database.db.select().from(jobTicks).where(eq(jobTicks.job, job)))
    .map((t) => t.tick.toISOString())
    .sort();

test('a claimed tick forgets its own job’s ticks past the kept days, and nothing else', async () => {
  const now = new Date('2026-11-29T03:17:00Z');
  const old = new Date(now.getTime() - (TICKS_KEPT_DAYS + 1) * day);
  const edge = new Date(now.getTime() - TICKS_KEPT_DAYS * day);
  const recent = new Date(now.getTime() - 2 * day);
  for (const tick of [old, edge, recent]) await claim('prune-a', tick);
  await claim('prune-b', old);

  await claim('prune-a', now);

  expect(await ticksOf('prune-a')).toEqual([edge, recent, now].map((t) => t.toISOString()));
  expect(await ticksOf('prune-b')).toEqual([old.toISOString()]);
  // The kept record still makes a tick run once.
  await expect(claim('prune-a', recent)).rejects.toBeInstanceOf(TickTaken);
});

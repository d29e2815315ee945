import { expect, test } from 'vitest';
import { readThroughCache } from './read-through-cache';

/** A cache whose fetches the test answers: `answer()` resolves the one in flight with `value`. */
function gatedCache() {
  let answer: (value: { n: number }) => void = () => {};
  let fetches = 0;
  const cache = readThroughCache<string, { n: number }>({
    max: 10,
    ttl: 60_000,
    fetchMethod: () => {
      fetches += 1;
      return new Promise((resolve) => {
        answer = resolve;
      });
    },
  });
  return { cache, answer: (n: number) => answer({ n }), fetches: () => fetches };
}

test.each([
  ['deleted', (c: ReturnType<typeof gatedCache>['cache']) => c.delete('k')],
  ['cleared', (c: ReturnType<typeof gatedCache>['cache']) => c.clear()],
  ['replaced', (c: ReturnType<typeof gatedCache>['cache']) => c.set('k', { n: 2 })],
])('a fetch in flight when its key is %s answers what it read', async (_what, change) => {
  const gated = gatedCache();
  const waiting = gated.cache.fetch('k');
  change(gated.cache);
  gated.answer(1);
  await expect(waiting).resolves.toEqual({ n: 1 });
});

test('what a fetch read before its key was deleted is not kept: the next caller fetches afresh', async () => {
  const gated = gatedCache();
  const waiting = gated.cache.fetch('k');
  gated.cache.delete('k');
  gated.answer(1);
  await waiting;
  const next = gated.cache.fetch('k');
  expect(gated.fetches()).toBe(2);
  gated.answer(3);
  expect(await next).toEqual({ n: 3 });
});

import { afterEach, expect, test, vi } from 'vitest';
import { ttlCache } from './ttl-cache';

afterEach(() => vi.useRealTimers());

test('the first read waits for the load; once loaded, the value itself is answered, not a promise', async () => {
  let loads = 0;
  const cache = ttlCache(async () => ++loads, 1000);
  const first = cache.get();
  expect(first).toBeInstanceOf(Promise);
  expect(await first).toBe(1);
  expect(cache.get()).toBe(1);
  expect(loads).toBe(1);
});

test('an expired value is loaded again (and waited for); clear() forgets it at once', async () => {
  vi.useFakeTimers();
  let loads = 0;
  const cache = ttlCache(async () => ++loads, 1000);
  await cache.get();
  vi.advanceTimersByTime(1001);
  const again = cache.get();
  expect(again).toBeInstanceOf(Promise);
  expect(await again).toBe(2);
  cache.clear();
  expect(await cache.get()).toBe(3);
});

test('a failed load is not kept: the next read tries again', async () => {
  let fail = true;
  const cache = ttlCache(async () => {
    if (fail) throw new Error('database away');
    return 'loaded';
  }, 1000);
  await expect(cache.get()).rejects.toThrow('database away');
  fail = false;
  expect(await cache.get()).toBe('loaded');
});

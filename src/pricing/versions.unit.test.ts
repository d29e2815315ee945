import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { StoredVersion } from './store';
import { versionCache } from './versions';

const TTL = 10_000;

/** A table whose one version's content the test changes, and whose reads it can make fail. */
function table() {
  const t = { price: 1, reads: 0, down: false };
  const load = async (): Promise<StoredVersion<number>[]> => {
    t.reads += 1;
    if (t.down) throw new Error('database down');
    return [
      {
        validFrom: '2026-01-01',
        content: t.price,
        sha256: `sha-${t.price}`,
        source: 's',
        loadedAt: new Date(),
      },
    ];
  };
  return { t, cache: versionCache(load, (n: number) => n, TTL) };
}

const priceOf = async (cache: ReturnType<typeof table>['cache']) => (await cache.all())[0]?.compiled;

describe('versionCache: another process’s change is seen within its time', () => {
  beforeEach(() => vi.useFakeTimers({ now: new Date('2026-11-27T10:00:00Z') }));
  afterEach(() => vi.useRealTimers());

  test('under steady use: held at once, refreshed in the background from half its time', async () => {
    const { t, cache } = table();
    expect(await priceOf(cache)).toBe(1);
    t.price = 2;
    vi.advanceTimersByTime(TTL / 2 - 1);
    expect(Array.isArray(cache.all())).toBe(true);
    expect(t.reads).toBe(1);
    vi.advanceTimersByTime(2);
    // Past half: still answered at once, with the held list, while it is read again.
    const held = cache.all();
    expect(Array.isArray(held) && held[0]?.compiled).toBe(1);
    await vi.waitFor(() => expect(t.reads).toBe(2));
    expect(await priceOf(cache)).toBe(2);
  });

  test('after an idle spell longer than its time, the first request waits for the change', async () => {
    // Once served from what it held, for as long as the process had been idle: a booking stored that price.
    const { t, cache } = table();
    expect(await priceOf(cache)).toBe(1);
    t.price = 2;
    vi.advanceTimersByTime(TTL * 3);
    expect(await priceOf(cache)).toBe(2);
  });

  test('when the database cannot answer, what is held is served on', async () => {
    const { t, cache } = table();
    expect(await priceOf(cache)).toBe(1);
    t.down = true;
    vi.advanceTimersByTime(TTL * 3);
    expect(await priceOf(cache)).toBe(1);
    // The next request is answered at once, not after another failed wait on the database.
    const next = cache.all();
    expect(Array.isArray(next) && next[0]?.compiled).toBe(1);
  });
});

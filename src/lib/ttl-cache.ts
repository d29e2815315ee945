import type { MaybePromise } from './maybe-promise';

/**
 * A value loaded on first use and trusted for `ttlMs` (milliseconds of `Date.now`): the catalogue,
 * the routing data and the pickup points, which an admin replace through another process changes
 * in the database. Callers share one load in flight; a failed load is not kept, so the next call
 * tries again. A loaded, fresh value is answered as is, not as a promise, so a hot path that finds
 * everything in memory never waits for a microtask. `clear()` after a change through this process
 * makes it seen at once.
 */
export function ttlCache<T>(
  load: () => Promise<T>,
  ttlMs: number,
): { get(): MaybePromise<T>; clear(): void } {
  let cached: { value: Promise<T>; at: number; settled?: { value: T } } | null = null;
  return {
    get() {
      const now = Date.now();
      if (!cached || now - cached.at > ttlMs) {
        const entry: NonNullable<typeof cached> = { value: load(), at: now };
        entry.value.then(
          (value) => {
            entry.settled = { value };
          },
          () => {
            if (cached === entry) cached = null;
          },
        );
        cached = entry;
      }
      return cached.settled ? cached.settled.value : cached.value;
    },
    clear() {
      cached = null;
    },
  };
}

/**
 * A value loaded on first use and trusted for `ttlMs` (milliseconds of `Date.now`): the catalogue,
 * the routing data and the pickup points, which an admin replace through another process changes
 * in the database. Callers share one load in flight; a failed load is not kept, so the next call
 * tries again. `clear()` after a change through this process makes it seen at once.
 */
export function ttlCache<T>(load: () => Promise<T>, ttlMs: number): { get(): Promise<T>; clear(): void } {
  let cached: { value: Promise<T>; at: number } | null = null;
  return {
    get() {
      const now = Date.now();
      if (!cached || now - cached.at > ttlMs) {
        const entry = { value: load(), at: now };
        entry.value.catch(() => {
          if (cached === entry) cached = null;
        });
        cached = entry;
      }
      return cached.value;
    },
    clear() {
      cached = null;
    },
  };
}

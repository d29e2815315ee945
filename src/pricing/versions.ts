import type { StoredVersion } from './store';

/** One stored version with its compiled form. */
export interface Version<C> {
  validFrom: string;
  sha256: string;
  source: string;
  loadedAt: Date;
  compiled: C;
}

/** A table's versions in memory: every version at once when loaded, and a reload after a change. */
export interface VersionCache<C> {
  /** Every version, oldest first, never older than the cache's time while the database answers. */
  all(): Version<C>[] | Promise<Version<C>[]>;
  /** Reloads now (after a change made through this process). */
  reload(): Promise<Version<C>[]>;
}

/**
 * The versions of a table (tariffs, exchange rates) compiled once and kept in memory; refreshed from
 * the database in the background when older than half of `ttlMs`, and waited for when older than
 * `ttlMs`, recompiling only changed versions.
 */
export function versionCache<T, C>(
  load: () => Promise<StoredVersion<T>[]>,
  compile: (t: T) => C,
  ttlMs: number,
): VersionCache<C> {
  let state: { versions: Version<C>[]; at: number } | null = null;
  let inflight: Promise<Version<C>[]> | null = null;

  const refresh = (): Promise<Version<C>[]> => {
    if (inflight) return inflight;
    const started = Date.now();
    const run = load()
      .then((rows) => {
        const known = new Map((state?.versions ?? []).map((v) => [`${v.validFrom}/${v.sha256}`, v]));
        const versions = rows.map(
          (r) =>
            known.get(`${r.validFrom}/${r.sha256}`) ?? {
              validFrom: r.validFrom,
              sha256: r.sha256,
              source: r.source,
              loadedAt: r.loadedAt,
              compiled: compile(r.content),
            },
        );
        state = { versions, at: started };
        return versions;
      })
      .finally(() => {
        inflight = null;
      });
    inflight = run;
    return run;
  };

  return {
    all(): Version<C>[] | Promise<Version<C>[]> {
      if (!state) return refresh();
      const age = Date.now() - state.at;
      if (age <= ttlMs / 2) return state.versions;
      const held = state.versions;
      // Past half its life the list is refreshed in the background, so under steady load no request
      // waits; past its life (an idle process) the request waits, unless the database cannot answer.
      if (age <= ttlMs) {
        refresh().catch(() => {});
        return held;
      }
      return refresh().catch(() => {
        // The database cannot answer: served on, and counted as half-fresh, so that the next
        // requests are answered at once while the background tries again, not each after a timeout.
        if (state) state.at = Date.now() - ttlMs / 2;
        return held;
      });
    },
    reload: async () => {
      if (inflight) await inflight.catch(() => {});
      return refresh();
    },
  };
}

/** The version in force on a date: the latest whose `validFrom` is on or before it. */
export function inForce<C>(versions: readonly Version<C>[], date: string): Version<C> | null {
  for (let i = versions.length - 1; i >= 0; i--) {
    const v = versions[i];
    if (v && v.validFrom <= date) return v;
  }
  return null;
}

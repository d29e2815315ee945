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
  /** Every version, oldest first: at once when loaded (a stale list is refreshed in the background). */
  all(): Version<C>[] | Promise<Version<C>[]>;
  /** Reloads now (after a change made through this process). */
  reload(): Promise<Version<C>[]>;
}

/**
 * The versions of a table (tariffs, exchange rates) compiled once and kept in memory; refreshed from
 * the database when older than `ttlMs` (in the background once loaded), recompiling only changed
 * versions.
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
      if (Date.now() - state.at > ttlMs) refresh().catch(() => {});
      return state.versions;
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

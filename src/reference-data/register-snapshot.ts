import pg from 'pg';
import type { Db } from '../db/client';
import { allCodesWithTerminals, registerDigest } from './store/postal-codes';

/**
 * The postal register in memory: every code and its serving terminal, so a booking's zip check and
 * route cost no database round trip. From half of `REGISTER_CHECK_MS` a request starts a background
 * check of the register's digest (one row), and the codes are read again only when it changed;
 * requests keep using the snapshot meanwhile, so under steady load a check never makes one wait. A
 * snapshot unchecked for the whole interval (a process that was idle) is checked before it answers.
 * A change through this process (register import, routing replace, shipped load) clears it at once;
 * one through another process of the fleet is seen within the interval. The embedded database has
 * one process, so it is never checked there: the digest would run on this process's event loop
 * (PGlite is in-process) for nothing.
 */
const REGISTER_CHECK_MS = 10_000;

/** Only processes sharing a PostgreSQL server can change the register behind this one's back. */
const sharedDatabase = (db: Db) => (db as unknown as { $client?: unknown }).$client instanceof pg.Pool;

type RegisterSnapshot = ReadonlyMap<string, string | null>;

/** The register as loaded: each code's terminal, and the category of each code that is not `G`. */
interface Loaded {
  map: RegisterSnapshot;
  categories: ReadonlyMap<string, string>;
  digest: string;
}

interface State {
  codes: Promise<Loaded>;
  checkedAt: number;
  /** The digest check under way, if one is. */
  checking: Promise<void> | null;
}

/** The codes, with the register's digest when it will be checked (`digest` then gives it). */
async function load(db: Db, digest: Promise<string> | null): Promise<Loaded> {
  const [known, rows] = await Promise.all([digest ?? '', allCodesWithTerminals(db)]);
  return {
    map: new Map(rows.map((r) => [r.code, r.terminal])),
    // Street addresses (`G`) are nearly all codes; only the others need saying.
    categories: new Map(rows.filter((r) => r.category !== 'G').map((r) => [r.code, r.category])),
    digest: known,
  };
}

function createSnapshot(db: Db) {
  const checked = sharedDatabase(db);
  let state: State | null = null;
  const clearListeners: (() => void)[] = [];
  const fresh = (): State => {
    const next: State = {
      codes: load(db, checked ? registerDigest(db) : null),
      checkedAt: Date.now(),
      checking: null,
    };
    // A failed load is not kept: the next request tries again.
    next.codes.catch(() => {
      if (state === next) state = null;
    });
    return next;
  };
  function check(current: State): Promise<void> {
    current.checking = compare(current).finally(() => {
      current.checkedAt = Date.now();
      current.checking = null;
    });
    return current.checking;
  }
  async function compare(current: State): Promise<void> {
    try {
      const { digest } = await current.codes;
      const now = await registerDigest(db);
      if (now !== digest && state === current) {
        const loaded = await load(db, Promise.resolve(now));
        if (state === current) current.codes = Promise.resolve(loaded);
      }
    } catch {
      // Keep the snapshot; the next interval checks again.
    }
  }
  /** The register, fresh enough; no promise of its own on the common path (the price route's). */
  function loaded(): Promise<Loaded> {
    if (!state) state = fresh();
    const current = state;
    if (checked) {
      const age = Date.now() - current.checkedAt;
      // Checked in the background from half the interval; past it (an idle process), waited for.
      if (age > REGISTER_CHECK_MS) return (current.checking ?? check(current)).then(() => current.codes);
      if (age > REGISTER_CHECK_MS / 2 && !current.checking) void check(current);
    }
    return current.codes;
  }
  return {
    /** Every code and its serving terminal. */
    get: async (): Promise<RegisterSnapshot> => (await loaded()).map,
    /** Codes with their terminals and, for every code that is not `G` (street addresses), its category. */
    read: (): Promise<Pick<Loaded, 'map' | 'categories'>> => loaded(),
    /** After a change through this process; tells `onClear`'s listeners. */
    clear(): void {
      state = null;
      for (const listener of clearListeners) listener();
    },
    /** Calls `listener` at each `clear`: caches built on the register (pricing's) forget it too. */
    onClear(listener: () => void): void {
      clearListeners.push(listener);
    },
  };
}

// One snapshot per database, shared by the postal-code and terminal services built on it.
const snapshots = new WeakMap<Db, ReturnType<typeof createSnapshot>>();

export function registerSnapshot(db: Db) {
  let snapshot = snapshots.get(db);
  if (!snapshot) {
    snapshot = createSnapshot(db);
    snapshots.set(db, snapshot);
  }
  return snapshot;
}

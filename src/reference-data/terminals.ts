import type { Db } from '../db/client';
import { Violations } from '../lib/errors';
import { ttlCache } from '../lib/ttl-cache';
import { holdRegister } from './postal-codes';
import { registerSnapshot } from './register-snapshot';
import { assignPostalCodeTerminals, readRouting, writeRouting } from './store/terminals';
import { type RoutingData, readShippedRouting, type TerminalRecord } from './terminals-files';
import { loadWhenChanged, replaceAsAdmin } from './terminals-loads';
import { transitMatrix } from './terminals-routing';

export type { RoutingData, TerminalRecord } from './terminals-files';

const LOAD_NAME = 'terminals';

/**
 * How long a process trusts its cached routing data. A replace through this process is seen at once;
 * other processes see it within this time.
 */
export const ROUTING_CACHE_MS = 10_000;

/** Wire shape of a terminal (`GET /v1/terminals`). */
export interface TerminalView {
  Code: string;
  Name: string;
  Place: string;
  Latitude: number;
  Longitude: number;
}

/** The route of a domestic shipment: the serving terminals of both postal codes and the transit time. */
export interface Route {
  fromTerminal: string;
  toTerminal: string;
  /** Working days from pickup to delivery. */
  transitDays: number;
}

interface Snapshot {
  terminals: readonly TerminalRecord[];
  /** `FROM>TO` → days. */
  transit: ReadonlyMap<string, number>;
}

const view = (t: TerminalRecord): TerminalView => ({
  Code: t.code,
  Name: t.name,
  Place: t.place,
  Latitude: t.lat,
  Longitude: t.lon,
});

/**
 * Semantic checks of routing data beyond its schema: unique codes, a transit time for every ordered
 * pair of terminals (and none for unknown ones), overrides naming known terminals and postal codes.
 */
export function checkRouting(data: RoutingData, knownPostalCodes: ReadonlySet<string>, v: Violations): void {
  const codes = new Set<string>();
  data.terminals.forEach((t, i) => {
    v.check(`Terminals[${i}].Code`, !codes.has(t.code), `Terminal code ${t.code} is listed twice.`);
    codes.add(t.code);
  });
  const pairs = new Set<string>();
  data.transitDays.forEach((d, i) => {
    const key = `${d.fromTerminal}>${d.toTerminal}`;
    v.check(
      `TransitDays[${i}].From`,
      codes.has(d.fromTerminal),
      `Terminal ${d.fromTerminal} is not in Terminals.`,
    );
    v.check(`TransitDays[${i}].To`, codes.has(d.toTerminal), `Terminal ${d.toTerminal} is not in Terminals.`);
    v.check(
      `TransitDays[${i}]`,
      !pairs.has(key),
      `The pair ${d.fromTerminal} to ${d.toTerminal} is listed twice.`,
    );
    pairs.add(key);
  });
  const missing = [...codes].flatMap((a) =>
    [...codes].filter((b) => !pairs.has(`${a}>${b}`)).map((b) => `${a}>${b}`),
  );
  v.check(
    'TransitDays',
    missing.length === 0,
    `Every ordered pair of terminals needs a transit time; missing: ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ` and ${missing.length - 10} more` : ''}.`,
  );
  const overridden = new Set<string>();
  data.overrides.forEach((o, i) => {
    v.check(`Overrides[${i}].Terminal`, codes.has(o.terminal), `Terminal ${o.terminal} is not in Terminals.`);
    v.check(
      `Overrides[${i}].PostalCode`,
      knownPostalCodes.has(o.postalCode),
      `Postal code ${o.postalCode} is not in the postal register.`,
    );
    v.check(
      `Overrides[${i}].PostalCode`,
      !overridden.has(o.postalCode),
      `Postal code ${o.postalCode} is listed twice.`,
    );
    overridden.add(o.postalCode);
  });
}

export type TerminalService = ReturnType<typeof createTerminalService>;

/** Terminals, transit times and the postal code → terminal assignment (`docs/catalogue.md`). */
export function createTerminalService({ db, cacheMs = ROUTING_CACHE_MS }: { db: Db; cacheMs?: number }) {
  const cache = ttlCache(
    (): Promise<Snapshot> =>
      readRouting(db).then((r) => ({
        terminals: r.terminals,
        transit: new Map(r.transitDays.map((d) => [`${d.fromTerminal}>${d.toTerminal}`, d.days])),
      })),
    cacheMs,
  );
  const snapshot = cache.get;
  const register = registerSnapshot(db);

  return {
    /** Loads the shipped routing files when any changed since the last load, and assigns every postal code. */
    async loadShipped(): Promise<boolean> {
      const { data, sha256 } = readShippedRouting();
      const loaded = await loadWhenChanged(db, LOAD_NAME, sha256, async (tx) => {
        await writeRouting(tx, data);
        await assignPostalCodeTerminals(tx);
      });
      if (loaded) {
        cache.clear();
        register.clear();
      }
      return loaded;
    },

    /**
     * Replaces terminals, transit times and overrides (admin API) in one transaction and reassigns
     * every postal code. Without transit times they are derived from the distance bands and the
     * documented exceptions. The shipped files no longer overwrite the replaced data.
     */
    async replace(input: {
      terminals: TerminalRecord[];
      transitDays?: RoutingData['transitDays'];
      overrides: RoutingData['overrides'];
    }): Promise<{ terminals: number; transitDays: number; overrides: number; postalCodesChanged: number }> {
      const data: RoutingData = {
        terminals: input.terminals,
        transitDays: input.transitDays ?? transitMatrix(input.terminals),
        overrides: input.overrides,
      };
      const changed = await replaceAsAdmin(db, LOAD_NAME, data, async (tx) => {
        // Judged under the register's hold: an import withdrawing an overridden code waits.
        const known = await holdRegister(
          tx,
          data.overrides.map((o) => o.postalCode),
        );
        const v = new Violations();
        checkRouting(data, new Set(known.keys()), v);
        v.throwIfAny();
        await writeRouting(tx, data);
        return assignPostalCodeTerminals(tx);
      });
      cache.clear();
      register.clear();
      return {
        terminals: data.terminals.length,
        transitDays: data.transitDays.length,
        overrides: data.overrides.length,
        postalCodesChanged: changed,
      };
    },

    /** Every terminal, by code. */
    async list(): Promise<TerminalView[]> {
      return (await snapshot()).terminals.map(view);
    },

    /** Working days from terminal `from` to terminal `to`, or null when either is unknown. */
    async transitDays(from: string, to: string): Promise<number | null> {
      return (await snapshot()).transit.get(`${from}>${to}`) ?? null;
    },

    /**
     * The serving terminal of each given postal code that is in the register (null when it has
     * none); codes not in the register are absent from the map. From the register snapshot.
     */
    async terminalsOf(codes: readonly string[]): Promise<Map<string, string | null>> {
      if (codes.length === 0) return new Map();
      const known = await register.get();
      const found = new Map<string, string | null>();
      for (const code of codes) {
        const terminal = known.get(code);
        if (terminal !== undefined) found.set(code, terminal);
      }
      return found;
    },

    /**
     * The serving terminals of two postal codes and the transit time between them, or null when a
     * code is not in the register (or has no terminal). One query for both codes.
     */
    async route(fromZip: string, toZip: string): Promise<Route | null> {
      const terminalOf = await this.terminalsOf([fromZip, toZip]);
      const fromTerminal = terminalOf.get(fromZip);
      const toTerminal = terminalOf.get(toZip);
      if (!fromTerminal || !toTerminal) return null;
      const days = (await snapshot()).transit.get(`${fromTerminal}>${toTerminal}`);
      return days === undefined ? null : { fromTerminal, toTerminal, transitDays: days };
    },
  };
}

import type { Db, DbOrTx, Tx } from '../db/client';
import { DomainError, notFound } from '../lib/errors';
import { readCsv } from './files';
import { registerSnapshot } from './register-snapshot';
import { lockLoad } from './store/loads';
import {
  codesNotIn,
  coordinateOf,
  existingCodes,
  findCode,
  type PostalCodeRecord,
  type PostalCodeRow,
  writeRegister,
} from './store/postal-codes';
import { assignPostalCodeTerminals, deleteOverrides, overridesAt } from './store/terminals';
import { loadWhenChanged, replaceAsAdmin } from './terminals-loads';

export type { PostalCodeRecord, PostalCodeRow } from './store/postal-codes';

/** Wire shape of `GET /v1/postalcodes/{postalCode}`. */
export interface PostalCodeView {
  PostalCode: string;
  Place: string;
  MunicipalityCode: string;
  Municipality: string;
  CountyCode: string;
  County: string;
  Category: string;
  Terminal: string | null;
}

export const POSTAL_CODE_PATTERN = /^\d{4}$/;
const SHIPPED_FILE = 'postal-codes-no.csv';

interface CsvRow {
  postal_code: string;
  place: string;
  municipality_code: string;
  municipality: string;
  county_code: string;
  county: string;
  category: string;
  lat: string;
  lon: string;
}

const coordinate = (s: string) => (s === '' ? null : Number(s));

export function fromCsv(row: CsvRow): PostalCodeRecord {
  return {
    postalCode: row.postal_code,
    place: row.place,
    municipalityCode: row.municipality_code,
    municipality: row.municipality,
    countyCode: row.county_code,
    county: row.county,
    category: row.category,
    lat: coordinate(row.lat),
    lon: coordinate(row.lon),
  };
}

const view = (row: PostalCodeRow): PostalCodeView => ({
  PostalCode: row.postalCode,
  Place: row.place,
  MunicipalityCode: row.municipalityCode,
  Municipality: row.municipality,
  CountyCode: row.countyCode,
  County: row.county,
  Category: row.category,
  Terminal: row.terminal,
});

/**
 * Why a postal code of the register's `category` is no address, or null when it is one: a service
 * code (`S`, business reply) names no place a parcel goes to or comes from.
 */
export const notAnAddress = (zip: string, category: string | undefined): string | null =>
  category === 'S' ? `Postal code ${zip} is a service code, not used in addresses.` : null;

/**
 * Holds the register as it is until `tx` ends (a register import or load waits for it) and answers
 * which of `codes` it has, each with its category, read in `tx`. What is written at postal codes (pickup points, terminal
 * overrides) is judged under it, so a register withdrawing a code cannot pass between the check and
 * the write and leave something standing at a code that no longer exists.
 */
export async function holdRegister(tx: Tx, codes: readonly string[]): Promise<Map<string, string>> {
  await lockLoad(tx, SHIPPED_FILE);
  const rows = codes.length === 0 ? [] : await existingCodes(tx, codes);
  return new Map(rows.map((r) => [r.code, r.category]));
}

/**
 * What another domain keeps at a postal code (pickup points): asked for, and retired, when a new
 * register withdraws codes, so nothing is left standing at a code that no longer exists.
 */
export interface PostalCodeDependent {
  /** What they are, in a sentence: `pickup points`. */
  what: string;
  /** The dependents at any of `codes`: an id each and its code. */
  at(tx: Tx, codes: readonly string[]): Promise<{ id: string; postalCode: string }[]>;
  /** Removes them, in the register's transaction. */
  retire(tx: Tx, ids: readonly string[]): Promise<void>;
}

/** What a register replacement withdrew, and what stood at the withdrawn codes and went with them. */
export interface Withdrawal {
  withdrawn: string[];
  retired: Record<string, string[]>;
}

/**
 * Makes the stored register equal `records`: new codes are added, known ones updated in place,
 * withdrawn ones removed, and every code's serving terminal assigned again from the routing data
 * (a moved coordinate may change it). Never duplicates. What stands at a withdrawn code (a terminal
 * override, another domain's `dependents`) is retired with it when `retire`, else the whole
 * replacement is refused (409) naming it.
 */
async function replaceRegister(
  tx: Tx,
  records: PostalCodeRecord[],
  dependents: readonly PostalCodeDependent[],
  retire: boolean,
): Promise<Withdrawal> {
  const withdrawn = await codesNotIn(
    tx,
    records.map((r) => r.postalCode),
  );
  const standing: { dependent: PostalCodeDependent; found: { id: string; postalCode: string }[] }[] = [];
  const overrides: PostalCodeDependent = {
    what: 'terminal overrides',
    at: async (t, codes) => (await overridesAt(t, codes)).map((code) => ({ id: code, postalCode: code })),
    retire: deleteOverrides,
  };
  for (const dependent of [overrides, ...dependents]) {
    const found = withdrawn.length ? await dependent.at(tx, withdrawn) : [];
    if (found.length) standing.push({ dependent, found });
  }
  if (standing.length && !retire) {
    const listed = standing.map(
      ({ dependent, found }) =>
        `${dependent.what} ${found.map((f) => (f.id === f.postalCode ? f.id : `${f.id} (${f.postalCode})`)).join(', ')}`,
    );
    throw new DomainError(
      'conflict',
      'postal_codes_in_use',
      `The new register withdraws postal codes still in use: ${listed.join('; ')}. Keep those codes, or send RetireDependents: true to remove them along with the codes.`,
    );
  }
  const retired: Record<string, string[]> = { [overrides.what]: [] };
  for (const { dependent, found } of standing) {
    const ids = found.map((f) => f.id);
    await dependent.retire(tx, ids);
    retired[dependent.what] = ids;
  }
  await writeRegister(tx, records);
  await assignPostalCodeTerminals(tx);
  return { withdrawn, retired };
}

export type PostalCodeService = ReturnType<typeof createPostalCodeService>;

export function createPostalCodeService({ db }: { db: Db }) {
  const register = registerSnapshot(db);
  const dependents = new Map<string, PostalCodeDependent>();
  return {
    /** Registers what another domain keeps at postal codes (see `PostalCodeDependent`). */
    dependedOnBy(dependent: PostalCodeDependent): void {
      dependents.set(dependent.what, dependent);
    },

    /**
     * Loads the shipped register when it differs from what was loaded last (by content hash), so a
     * restart costs one small query and a changed file updates the table. What stands at a code the
     * new file withdraws is retired with it: nobody is there to be asked.
     */
    async loadShipped(): Promise<boolean> {
      const file = readCsv<CsvRow>(SHIPPED_FILE);
      const loaded = await loadWhenChanged(db, SHIPPED_FILE, file.sha256, async (tx) => {
        await replaceRegister(tx, file.rows.map(fromCsv), [...dependents.values()], true);
      });
      if (loaded) register.clear();
      return loaded;
    },

    /**
     * Replaces the register with an imported one (admin API), in one transaction, marked as the
     * operator's: a release with a changed register file no longer overwrites it. Refused (409) when
     * it withdraws codes something still stands at, unless `retireDependents`.
     */
    async importRegister(
      records: PostalCodeRecord[],
      retireDependents = false,
    ): Promise<{ count: number } & Withdrawal> {
      const withdrawal = await replaceAsAdmin(db, SHIPPED_FILE, records, (tx) =>
        replaceRegister(tx, records, [...dependents.values()], retireDependents),
      );
      register.clear();
      return { count: records.length, ...withdrawal };
    },

    holdRegister,

    /**
     * Calls `listener` after each change through this process of the register or of the terminals
     * serving its codes (import, routing replace, shipped load), so caches of other domains built on
     * `terminalOf` (pricing's) are in force here at once.
     */
    onChange(listener: () => void): void {
      register.onClear(listener);
    },

    /**
     * The category of each given code that is in the register (`G` street addresses, `P` PO boxes,
     * `B` both, `S` service codes), from the in-memory register snapshot; a code not in it is absent.
     */
    async categoriesOf(codes: readonly string[]): Promise<Map<string, string>> {
      if (codes.length === 0) return new Map();
      const { map, categories } = await register.read();
      return new Map(codes.filter((c) => map.has(c)).map((c) => [c, categories.get(c) ?? 'G']));
    },

    /** A code's serving terminal (null when it has none), or null when the code is not in the register. */
    async terminalOf(postalCode: string): Promise<{ terminal: string | null } | null> {
      const terminal = (await register.get()).get(postalCode);
      return terminal === undefined ? null : { terminal };
    },

    /** `using`: the transaction to read in, when the caller holds one (the embedded database has one connection). */
    find: (postalCode: string, using: DbOrTx = db): Promise<PostalCodeRow | null> =>
      findCode(using, postalCode),

    async view(postalCode: string): Promise<PostalCodeView> {
      const row = await this.find(postalCode);
      if (!row) throw notFound(`Postal code ${postalCode}`);
      return view(row);
    },

    /**
     * The coordinate of a postal code: its own, or the mean of its municipality's codes when it has
     * none. `found` is false when the code is not in the register; `point` null when no position is known.
     */
    coordinateOf: (postalCode: string) => coordinateOf(db, postalCode),
  };
}

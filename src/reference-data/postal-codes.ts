import type { Db, DbOrTx } from '../db/client';
import { notFound } from '../lib/errors';
import { readCsv } from './files';
import { registerSnapshot } from './register-snapshot';
import {
  coordinateOf,
  findCode,
  type PostalCodeRecord,
  type PostalCodeRow,
  writeRegister,
} from './store/postal-codes';
import { assignPostalCodeTerminals } from './store/terminals';
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
 * Makes the stored register equal `records`: new codes are added, known ones updated in place,
 * withdrawn ones removed, and every code's serving terminal assigned again from the routing data
 * (a moved coordinate may change it). Never duplicates.
 */
async function replaceRegister(tx: DbOrTx, records: PostalCodeRecord[]): Promise<void> {
  await writeRegister(tx, records);
  await assignPostalCodeTerminals(tx);
}

export type PostalCodeService = ReturnType<typeof createPostalCodeService>;

export function createPostalCodeService({ db }: { db: Db }) {
  const register = registerSnapshot(db);
  return {
    /**
     * Loads the shipped register when it differs from what was loaded last (by content hash), so a
     * restart costs one small query and a changed file updates the table.
     */
    async loadShipped(): Promise<boolean> {
      const file = readCsv<CsvRow>(SHIPPED_FILE);
      const loaded = await loadWhenChanged(db, SHIPPED_FILE, file.sha256, (tx) =>
        replaceRegister(tx, file.rows.map(fromCsv)),
      );
      if (loaded) register.clear();
      return loaded;
    },

    /**
     * Replaces the register with an imported one (admin API), in one transaction, marked as the
     * operator's: a release with a changed register file no longer overwrites it.
     */
    async importRegister(records: PostalCodeRecord[]): Promise<{ count: number }> {
      await replaceAsAdmin(db, SHIPPED_FILE, records, (tx) => replaceRegister(tx, records));
      register.clear();
      return { count: records.length };
    },

    /** Which of the given codes are in the register (from the in-memory register snapshot). */
    async existing(codes: readonly string[]): Promise<Set<string>> {
      if (codes.length === 0) return new Set();
      const known = await register.get();
      return new Set(codes.filter((c) => known.has(c)));
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

import { eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { notFound } from '../lib/errors';
import { readCsv } from './files';
import { postalCodes, referenceDataLoads } from './tables';
import { assignPostalCodeTerminals } from './terminals-store';

export type PostalCodeRow = typeof postalCodes.$inferSelect;
export type PostalCodeRecord = Omit<PostalCodeRow, 'terminal'>;

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
  for (let i = 0; i < records.length; i += 1000) {
    await tx
      .insert(postalCodes)
      .values(records.slice(i, i + 1000))
      .onConflictDoUpdate({
        target: postalCodes.postalCode,
        set: {
          place: sql`excluded.place`,
          municipalityCode: sql`excluded.municipality_code`,
          municipality: sql`excluded.municipality`,
          countyCode: sql`excluded.county_code`,
          county: sql`excluded.county`,
          category: sql`excluded.category`,
          lat: sql`excluded.lat`,
          lon: sql`excluded.lon`,
        },
      });
  }
  await tx.delete(postalCodes).where(
    notInArray(
      postalCodes.postalCode,
      records.map((r) => r.postalCode),
    ),
  );
  await assignPostalCodeTerminals(tx);
}

export type PostalCodeService = ReturnType<typeof createPostalCodeService>;

export function createPostalCodeService({ db }: { db: Db }) {
  return {
    /**
     * Loads the shipped register when it differs from what was loaded last (by content hash), so a
     * restart costs one small query and a changed file updates the table.
     */
    async loadShipped(): Promise<boolean> {
      const file = readCsv<CsvRow>(SHIPPED_FILE);
      return db.transaction(async (tx) => {
        // Serialises processes starting together; released at commit.
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${SHIPPED_FILE}))`);
        const [loaded] = await tx
          .select()
          .from(referenceDataLoads)
          .where(eq(referenceDataLoads.name, SHIPPED_FILE));
        if (loaded?.sha256 === file.sha256) return false;
        await replaceRegister(tx, file.rows.map(fromCsv));
        await tx
          .insert(referenceDataLoads)
          .values({ name: SHIPPED_FILE, sha256: file.sha256 })
          .onConflictDoUpdate({
            target: referenceDataLoads.name,
            set: { sha256: file.sha256, loadedAt: sql`now()` },
          });
        return true;
      });
    },

    /** Replaces the register with an imported one (admin API), in one transaction. */
    async importRegister(records: PostalCodeRecord[]): Promise<{ count: number }> {
      await db.transaction((tx) => replaceRegister(tx, records));
      return { count: records.length };
    },

    /** Which of the given codes are in the register (one query for a whole booking's zips). */
    async existing(codes: readonly string[]): Promise<Set<string>> {
      if (codes.length === 0) return new Set();
      const rows = await db
        .select({ code: postalCodes.postalCode })
        .from(postalCodes)
        .where(inArray(postalCodes.postalCode, [...codes]));
      return new Set(rows.map((r) => r.code));
    },

    /** `using`: the transaction to read in, when the caller holds one (the embedded database has one connection). */
    async find(postalCode: string, using: DbOrTx = db): Promise<PostalCodeRow | null> {
      const [row] = await using.select().from(postalCodes).where(eq(postalCodes.postalCode, postalCode));
      return row ?? null;
    },

    async view(postalCode: string): Promise<PostalCodeView> {
      const row = await this.find(postalCode);
      if (!row) throw notFound(`Postal code ${postalCode}`);
      return view(row);
    },
  };
}

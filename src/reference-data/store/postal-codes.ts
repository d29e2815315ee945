import { asc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { postalCodes } from '../tables';

export type PostalCodeRow = typeof postalCodes.$inferSelect;
export type PostalCodeRecord = Omit<PostalCodeRow, 'terminal'>;

/**
 * Makes the stored register's codes equal `records`: new codes are added, known ones updated in
 * place (their terminal kept), withdrawn ones removed. Never duplicates. Call inside a transaction.
 */
export async function writeRegister(tx: DbOrTx, records: readonly PostalCodeRecord[]): Promise<void> {
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
}

/** The codes of the register that are not among `kept`: those a new register withdraws. */
export async function codesNotIn(db: DbOrTx, kept: readonly string[]): Promise<string[]> {
  const rows = await db
    .select({ code: postalCodes.postalCode })
    .from(postalCodes)
    .where(notInArray(postalCodes.postalCode, [...kept]))
    .orderBy(asc(postalCodes.postalCode));
  return rows.map((r) => r.code);
}

/** Which of the given codes are in the register, each with its category. */
export async function existingCodes(
  db: DbOrTx,
  codes: readonly string[],
): Promise<{ code: string; category: string }[]> {
  return db
    .select({ code: postalCodes.postalCode, category: postalCodes.category })
    .from(postalCodes)
    .where(inArray(postalCodes.postalCode, [...codes]));
}

export async function findCode(db: DbOrTx, postalCode: string): Promise<PostalCodeRow | null> {
  const [row] = await db.select().from(postalCodes).where(eq(postalCodes.postalCode, postalCode));
  return row ?? null;
}

/** Every code of the register with its serving terminal (for the in-memory snapshot; ~5 000 rows). */
export async function allCodesWithTerminals(
  db: DbOrTx,
): Promise<{ code: string; terminal: string | null; category: string }[]> {
  return db
    .select({ code: postalCodes.postalCode, terminal: postalCodes.terminal, category: postalCodes.category })
    .from(postalCodes);
}

/**
 * The outer row's municipality, qualified by table: drizzle renders a column unqualified, which
 * inside the subquery would bind to `m` and compare every code's municipality with itself.
 */
const outerMunicipality = sql`${postalCodes}.municipality_code`;

/**
 * The coordinate of a postal code: its own, or the mean of its municipality's codes when it has none;
 * null when the code is not in the register (or nothing of its municipality has coordinates).
 * `found` tells the two nulls apart.
 */
export async function coordinateOf(
  db: DbOrTx,
  postalCode: string,
): Promise<{ found: boolean; point: { lat: number; lon: number } | null }> {
  const [row] = await db
    .select({
      lat: postalCodes.lat,
      lon: postalCodes.lon,
      approxLat: sql<
        number | null
      >`(select avg(m.lat) from postal_codes m where m.municipality_code = ${outerMunicipality})`,
      approxLon: sql<
        number | null
      >`(select avg(m.lon) from postal_codes m where m.municipality_code = ${outerMunicipality})`,
    })
    .from(postalCodes)
    .where(eq(postalCodes.postalCode, postalCode));
  if (!row) return { found: false, point: null };
  if (row.lat !== null && row.lon !== null) return { found: true, point: { lat: row.lat, lon: row.lon } };
  if (row.approxLat !== null && row.approxLon !== null) {
    return { found: true, point: { lat: Number(row.approxLat), lon: Number(row.approxLon) } };
  }
  return { found: true, point: null };
}

/** A digest of every code and its terminal: the register snapshot reloads only when it changes. */
export async function registerDigest(db: DbOrTx): Promise<string> {
  const { rows } = (await db.execute(
    sql`select md5(coalesce(string_agg(postal_code || ':' || coalesce(terminal, ''), ',' order by postal_code), '')) as d from postal_codes`,
  )) as unknown as { rows: { d: string }[] };
  return rows[0]?.d ?? '';
}

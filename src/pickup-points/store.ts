import { asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { postalCodes } from '../reference-data/tables';
import type { PickupPointRecord } from './sandbox';
import { pickupPoints } from './tables';

export async function readAll(db: DbOrTx): Promise<PickupPointRecord[]> {
  return db.select().from(pickupPoints).orderBy(asc(pickupPoints.id));
}

/** Makes the stored set equal `points` (call inside a transaction). */
export async function writeAll(tx: DbOrTx, points: readonly PickupPointRecord[]): Promise<void> {
  await tx.delete(pickupPoints);
  for (let i = 0; i < points.length; i += 1000) {
    await tx.insert(pickupPoints).values(points.slice(i, i + 1000));
  }
}

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
      >`(select avg(m.lat) from postal_codes m where m.municipality_code = ${postalCodes.municipalityCode})`,
      approxLon: sql<
        number | null
      >`(select avg(m.lon) from postal_codes m where m.municipality_code = ${postalCodes.municipalityCode})`,
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

import { asc, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
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

/** The points at any of `codes`. */
export async function pointsAt(
  db: DbOrTx,
  codes: readonly string[],
): Promise<{ id: number; postalCode: string }[]> {
  return db
    .select({ id: pickupPoints.id, postalCode: pickupPoints.postalCode })
    .from(pickupPoints)
    .where(inArray(pickupPoints.postalCode, [...codes]))
    .orderBy(asc(pickupPoints.id));
}

export async function deletePoints(tx: DbOrTx, ids: readonly number[]): Promise<void> {
  if (ids.length > 0) await tx.delete(pickupPoints).where(inArray(pickupPoints.id, [...ids]));
}

import { asc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { scanEvents } from './tables';

export type NewScanRow = typeof scanEvents.$inferInsert;

/** Per shipment: on how many Oslo days its parcels were first scanned as picked up, and how many were. */
export interface PickupScans {
  pickupDays: number;
  pickedParcels: number;
  /** The Oslo date of the first Delivered scan, if any. */
  deliveredOn: string | null;
}

export function createOperationsStore(db: DbOrTx) {
  return {
    /** Inserts scans; a repeated EventId is skipped. Answers the ids that were new. */
    async insertScans(rows: NewScanRow[]): Promise<Set<string>> {
      if (rows.length === 0) return new Set();
      const inserted = await db
        .insert(scanEvents)
        .values(rows)
        .onConflictDoNothing()
        .returning({ eventId: scanEvents.eventId });
      return new Set(inserted.map((r) => r.eventId));
    },

    scansOf: (shipmentId: string) =>
      db
        .select()
        .from(scanEvents)
        .where(eq(scanEvents.shipmentId, shipmentId))
        .orderBy(asc(scanEvents.time), asc(scanEvents.receivedAt)),

    async scanTypesOf(shipmentId: string): Promise<Set<string>> {
      const rows = await db
        .selectDistinct({ t: scanEvents.eventType })
        .from(scanEvents)
        .where(eq(scanEvents.shipmentId, shipmentId));
      return new Set(rows.map((r) => r.t));
    },

    /** The pickup and delivery facts of the given shipments' scans, in one statement. */
    async pickupScans(shipmentIds: string[]): Promise<Map<string, PickupScans>> {
      if (shipmentIds.length === 0) return new Map();
      const rows = await db
        .select({
          shipmentId: sql<string>`f.shipment_id`,
          pickupDays: sql<
            number | string
          >`count(distinct (f.first_pickup at time zone 'Europe/Oslo')::date) filter (where f.first_pickup is not null)`,
          pickedParcels: sql<number | string>`count(f.first_pickup)`,
          deliveredOn: sql<string | null>`(min(f.first_delivery) at time zone 'Europe/Oslo')::date::text`,
        })
        .from(
          sql`(select ${scanEvents.shipmentId} as shipment_id,
                      min(${scanEvents.time}) filter (where ${scanEvents.eventType} = 'PickedUp') as first_pickup,
                      min(${scanEvents.time}) filter (where ${scanEvents.eventType} = 'Delivered') as first_delivery
               from ${scanEvents}
               where ${inArray(scanEvents.shipmentId, shipmentIds)}
               group by ${scanEvents.shipmentId}, ${scanEvents.parcelId}) f`,
        )
        .groupBy(sql`f.shipment_id`);
      return new Map(
        rows.map((r) => [
          r.shipmentId,
          {
            pickupDays: Number(r.pickupDays),
            pickedParcels: Number(r.pickedParcels),
            deliveredOn: r.deliveredOn,
          },
        ]),
      );
    },
  };
}

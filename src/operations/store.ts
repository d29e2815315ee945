import { and, asc, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { scanEvents } from './tables';

export type NewScanRow = typeof scanEvents.$inferInsert;

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

    /** The stored scan of each EventId: its parcel, type and time. */
    async scansByEventId(
      eventIds: string[],
    ): Promise<Map<string, { parcelId: string; eventType: string; time: Date }>> {
      if (eventIds.length === 0) return new Map();
      const rows = await db
        .select({
          eventId: scanEvents.eventId,
          parcelId: scanEvents.parcelId,
          eventType: scanEvents.eventType,
          time: scanEvents.time,
        })
        .from(scanEvents)
        .where(inArray(scanEvents.eventId, eventIds));
      return new Map(rows.map(({ eventId, ...scan }) => [eventId, scan]));
    },

    /** A shipment's scans in time order; with `parcelIds`, those parcels' alone. */
    scansOf: (shipmentId: string, parcelIds?: string[]) =>
      db
        .select()
        .from(scanEvents)
        .where(
          and(
            eq(scanEvents.shipmentId, shipmentId),
            parcelIds ? inArray(scanEvents.parcelId, parcelIds) : undefined,
          ),
        )
        .orderBy(asc(scanEvents.time), asc(scanEvents.receivedAt)),

    /** The scan types each parcel of a shipment has had (parcels without a scan are absent). */
    async scanTypesOf(shipmentId: string): Promise<Map<string, Set<string>>> {
      const rows = await db
        .selectDistinct({ parcelId: scanEvents.parcelId, t: scanEvents.eventType })
        .from(scanEvents)
        .where(eq(scanEvents.shipmentId, shipmentId));
      const byParcel = new Map<string, Set<string>>();
      for (const r of rows) byParcel.set(r.parcelId, (byParcel.get(r.parcelId) ?? new Set()).add(r.t));
      return byParcel;
    },
  };
}

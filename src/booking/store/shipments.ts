import { and, asc, eq, getTableColumns, inArray, isNull, ne, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { columnList, jsonRecord, oneOf } from '../../db/json-record';
import { executeNamed } from '../../db/named';
import { parcels, shipments } from '../tables';

export type ShipmentRow = typeof shipments.$inferSelect;
export type NewShipmentRow = typeof shipments.$inferInsert;
export type ParcelRow = typeof parcels.$inferSelect;
/** A parcel as booking writes it (the pickup time is written by scans only). */
export type ParcelValues = Omit<ParcelRow, 'shipmentId' | 'pickedUpAt'>;

const shipmentColumns = getTableColumns(shipments);

/** A new shipment row as one JSON parameter, with the list of the columns it sets (the others take their defaults). */
function shipmentRecord(row: NewShipmentRow): { json: string; columns: SQL } {
  const record = jsonRecord(shipmentColumns, row);
  return { json: JSON.stringify(record), columns: columnList(Object.keys(record)) };
}

export function createBookingStore(db: DbOrTx) {
  return {
    /** The shipment, locked for the rest of the transaction (concurrent updates take turns). */
    async lockShipment(id: string): Promise<ShipmentRow | null> {
      const [row] = await db.select().from(shipments).where(eq(shipments.id, id)).for('update');
      return row ?? null;
    },

    /**
     * Shipments locked in id order, whoever locks several (scans, invoicing runs, a cancel with its
     * return shipment): two transactions then wait for each other instead of deadlocking.
     */
    lockShipments(ids: readonly string[]): Promise<Pick<ShipmentRow, 'id' | 'cancelledAt'>[]> {
      if (ids.length === 0) return Promise.resolve([]);
      return db
        .select({ id: shipments.id, cancelledAt: shipments.cancelledAt })
        .from(shipments)
        .where(oneOf(shipments.id, ids))
        .orderBy(asc(shipments.id))
        .for('update');
    },

    async shipment(id: string): Promise<ShipmentRow | null> {
      const [row] = await db.select().from(shipments).where(eq(shipments.id, id));
      return row ?? null;
    },

    /** The customer of a shipment that is not cancelled, or null. */
    async shipmentOwner(shipmentId: string): Promise<string | null> {
      const [row] = await db
        .select({ customerNr: shipments.customerNr })
        .from(shipments)
        .where(and(eq(shipments.id, shipmentId), isNull(shipments.cancelledAt)));
      return row?.customerNr ?? null;
    },

    /** The shipment a parcel number belongs to (cancelled or not), or null: one statement. */
    async shipmentOfParcel(parcelId: string): Promise<ShipmentRow | null> {
      const [row] = await db
        .select(shipmentColumns)
        .from(parcels)
        .innerJoin(shipments, eq(shipments.id, parcels.shipmentId))
        .where(eq(parcels.parcelId, parcelId));
      return row ?? null;
    },

    parcelsOf: (shipmentId: string) =>
      db.select().from(parcels).where(eq(parcels.shipmentId, shipmentId)).orderBy(asc(parcels.seq)),

    /** Parcel ids among `ids` that belong to a shipment other than `shipmentId`. */
    async parcelIdsUsedElsewhere(ids: string[], shipmentId: string): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db
        .select({ id: parcels.parcelId })
        .from(parcels)
        .where(and(inArray(parcels.parcelId, ids), ne(parcels.shipmentId, shipmentId)));
      return new Set(rows.map((r) => r.id));
    },

    /**
     * A new shipment, its parcels and `also` (the outbox insert of its events) in ONE statement: one
     * round trip, atomic on its own. The select list's subqueries run in order, so the shipment row
     * (and its key) exists before the parcels reference it and before `also` takes its locks.
     */
    async insertShipmentWithParcels(row: NewShipmentRow, list: ParcelValues[], also: SQL): Promise<void> {
      const shipment = shipmentRecord(row);
      await executeNamed(
        db,
        sql`with s as (insert into shipments (${shipment.columns})
                select ${shipment.columns} from json_populate_record(null::shipments, ${shipment.json}::json)
                returning id),
        p as (${parcelsInsert(sql`(select id from s)`, list)} returning 1),
        e as (${also})
        select (select count(*) from s) as s, (select count(*) from p) as p, (select count(*) from e) as e`,
      );
    },

    async insertShipment(row: NewShipmentRow): Promise<void> {
      await db.insert(shipments).values(row);
    },

    async updateShipment(id: string, patch: Partial<NewShipmentRow>): Promise<void> {
      await db
        .update(shipments)
        .set({ ...patch, updatedAt: sql`now()` })
        .where(eq(shipments.id, id));
    },

    /**
     * Makes the shipment's parcels exactly `list`, in order: one delete and one set-based insert
     * (json_to_recordset), so 999 parcels cost two statements instead of 999.
     */
    async replaceParcels(shipmentId: string, list: ParcelValues[]): Promise<void> {
      await db.delete(parcels).where(eq(parcels.shipmentId, shipmentId));
      if (list.length === 0) return;
      await db.execute(parcelsInsert(sql`${shipmentId}`, list));
    },
  };
}

/**
 * The insert of `list` as parcels of `shipmentId`: one set-based statement, whatever the count. The
 * records are the parcels' own JSON, read by their property names (other properties are ignored),
 * so 999 parcels are one `JSON.stringify` and no copies.
 */
const parcelsInsert = (shipmentId: SQL, list: ParcelValues[]) => sql`
  insert into parcels (shipment_id, parcel_id, seq, weight_g, length_cm, height_cm, width_cm, volume_cm3)
  select ${shipmentId}, r."parcelId", r.seq, r."weightG", r."lengthCm", r."heightCm", r."widthCm", r."volumeCm3"
    from json_to_recordset(${JSON.stringify(list)}::json)
      as r("parcelId" text, seq int, "weightG" int, "lengthCm" int, "heightCm" int, "widthCm" int, "volumeCm3" bigint)`;

export type BookingStore = ReturnType<typeof createBookingStore>;

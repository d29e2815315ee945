import { and, asc, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { oneOf } from '../../db/json-record';
import { PALLET_FLOOR_CM2, palletLoadOfFloor } from '../parcels';
import { isSplit } from '../rules';
import { parcels, shipments } from '../tables';
import { createBookingStore } from './shipments';

/**
 * What other domains read of booking's tables, as functions (never the tables): the shipment
 * listing, the invoicing run, the scans. Each takes the caller's transaction when it runs in one.
 */

/**
 * Parcel sums of a shipment: count, real weight, volume (given, else length × width × height), and
 * its pickups: how far apart its parcels' first pickup scans lie, and how many parcels were picked up;
 * and the floor its parcels take as pallets, each its length × width, else a EUR pallet's, as
 * `palletLoad` counts it. The join is qualified by table: in a one-table select drizzle renders columns unqualified.
 */
const parcelSums = sql<Record<keyof ParcelSums, number | string>>`(
  select json_build_object(
    'count', count(*),
    'weightG', coalesce(sum(${parcels.weightG}), 0),
    'volumeCm3', coalesce(sum(coalesce(${parcels.volumeCm3}, ${parcels.lengthCm}::bigint * ${parcels.widthCm} * ${parcels.heightCm})), 0),
    'pickupSpanSeconds', coalesce(extract(epoch from max(${parcels.pickedUpAt}) - min(${parcels.pickedUpAt})), 0),
    'pickedParcels', count(${parcels.pickedUpAt}),
    'floorCm2', coalesce(sum(coalesce(nullif(${parcels.lengthCm}, 0)::bigint * nullif(${parcels.widthCm}, 0), ${PALLET_FLOOR_CM2})), 0))
  from ${parcels} where ${parcels}.shipment_id = ${shipments}.id)`;

/** The Oslo date of a shipment's first delivery (null before it). */
const deliveredOsloDate = sql`(${shipments.deliveredAt} at time zone 'Europe/Oslo')::date`;

export interface ParcelSums {
  count: number;
  weightG: number;
  volumeCm3: number;
  pickupSpanSeconds: number;
  pickedParcels: number;
  floorCm2: number;
}

/** What decides a shipment's payer (`payerOf`), with its id. */
const payerFields = {
  id: shipments.id,
  customerNr: shipments.customerNr,
  recipientShallPay: shipments.recipientShallPay,
  recipientCustomerId: shipments.recipientCustomerId,
  payerCustomerId: shipments.payerCustomerId,
};

/** Due for invoicing: published, picked up, priced, not cancelled nor invoiced, picked up by `toDate`. */
const invoiceableBy = (toDate: string) =>
  and(
    eq(shipments.status, 2),
    isNull(shipments.cancelledAt),
    sql`${shipments.pickedUpAt} is not null`,
    sql`${shipments.price} is not null`,
    isNull(shipments.invoicedAt),
    lte(shipments.pickupDate, toDate),
  );

/** The sums as numbers, and whether the shipment is split (`isSplit`). */
const sumsOf = (raw: Record<keyof ParcelSums, number | string>) => {
  const sums: ParcelSums = {
    count: Number(raw.count),
    weightG: Number(raw.weightG),
    volumeCm3: Number(raw.volumeCm3),
    pickupSpanSeconds: Number(raw.pickupSpanSeconds),
    pickedParcels: Number(raw.pickedParcels),
    floorCm2: Number(raw.floorCm2),
  };
  return { ...sums, split: isSplit(sums) };
};

export function createBookingReadStore(db: DbOrTx) {
  return {
    /**
     * Published, not cancelled shipments of a customer picked up at a postal code with a pickup date
     * in [from, to], by pickup date then id: at most `limit`, those after `after` (the last of the
     * page before). Served by the partial index `shipments_listing_idx`; the parcel sums are a
     * per-shipment subquery, so the cost follows the size of the page.
     */
    async listed(q: {
      customerNr: string;
      pickupZip: string;
      from: string;
      to: string;
      after?: { pickupDate: string; id: string } | undefined;
      limit: number;
    }) {
      const rows = await db
        .select({
          id: shipments.id,
          addresses: shipments.addresses,
          unitCode: shipments.unitCode,
          pickupDate: shipments.pickupDate,
          pickupWindowFrom: shipments.pickupWindowFrom,
          pickupWindowTo: shipments.pickupWindowTo,
          pickedUpAt: shipments.pickedUpAt,
          customerNr: shipments.customerNr,
          parcels: parcelSums,
        })
        .from(shipments)
        .where(
          and(
            eq(shipments.customerNr, q.customerNr),
            eq(shipments.pickupZip, q.pickupZip),
            sql`${shipments.pickupDate} between ${q.from}::date and ${q.to}::date`,
            eq(shipments.status, 2),
            isNull(shipments.cancelledAt),
            q.after
              ? sql`(${shipments.pickupDate}, ${shipments.id}) > (${q.after.pickupDate}::date, ${q.after.id})`
              : undefined,
          ),
        )
        .orderBy(asc(shipments.pickupDate), asc(shipments.id))
        .limit(q.limit);
      return rows.map((r) => ({ ...r, parcels: sumsOf(r.parcels) }));
    },

    /**
     * Locks the shipments due for invoicing: published, picked-up, priced, not cancelled, picked up
     * on or before `toDate`, carried by no invoice yet. Locked in id order, as scans lock them; a
     * pickup scan that commits meanwhile is waited for, and its row answered as it committed. Answers
     * only what decides each one's payer and its place on the invoice (its pickup date), so a run of
     * 90 000 shipments holds ids, not shipments (`invoiceableOf` reads them a few thousand at a time).
     */
    async lockInvoiceable(toDate: string) {
      return db
        .select({ ...payerFields, pickupDate: sql<string>`${shipments.pickupDate}::text` })
        .from(shipments)
        .where(invoiceableBy(toDate))
        .orderBy(asc(shipments.id))
        .for('update');
    },

    /**
     * Of the locked shipments `ids`, those still due, read afresh (a scan waited for may have moved
     * the pickup date), by pickup date then id, with what an invoice line needs.
     */
    async invoiceableOf(toDate: string, ids: readonly string[]) {
      if (ids.length === 0) return [];
      const rows = await db
        .select({
          ...payerFields,
          productCode: shipments.productCode,
          services: shipments.services,
          unitCode: shipments.unitCode,
          senderReference: shipments.senderReference,
          addresses: shipments.addresses,
          pickupDate: sql<string>`${shipments.pickupDate}::text`,
          // The actual delivery (first Delivered scan, Oslo date) when there is one, else the planned date.
          deliveryDate: sql<string | null>`coalesce(${deliveredOsloDate}, ${shipments.deliveryDate})::text`,
          price: shipments.price,
          parcels: parcelSums,
        })
        .from(shipments)
        .where(and(invoiceableBy(toDate), oneOf(shipments.id, ids)))
        .orderBy(asc(shipments.pickupDate), asc(shipments.id));
      return rows.flatMap((r) => {
        if (!r.price) return [];
        const sums = sumsOf(r.parcels);
        // Pallet spaces and loading metres as the shipment's record shows them and its price charged.
        return [
          {
            ...r,
            price: r.price,
            parcels: sums,
            load: palletLoadOfFloor(r.unitCode, sums.count, sums.floorCm2),
          },
        ];
      });
    },

    /** The Oslo date of each given shipment's first delivery, for those delivered. */
    async deliveredOn(ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const rows = await db
        .select({
          id: shipments.id,
          date: sql<string>`${deliveredOsloDate}::text`,
        })
        .from(shipments)
        .where(and(oneOf(shipments.id, ids), sql`${shipments.deliveredAt} is not null`));
      return new Map(rows.map((r) => [r.id, r.date]));
    },

    /** Marks shipments as carried by an invoice: no later run selects them again. */
    async markInvoiced(ids: string[]): Promise<void> {
      if (ids.length === 0) return;
      // Locked in id order first, as scans lock them (a run's `invoiceable` already holds them):
      // an update alone locks in the table's order.
      await createBookingStore(db).lockShipments(ids);
      await db.update(shipments).set({ invoicedAt: sql`now()` }).where(oneOf(shipments.id, ids));
    },

    /** The shipment behind each known parcel number, with what a scan must check of it. */
    parcelsForScans: (parcelIds: string[]) =>
      db
        .select({
          parcelId: parcels.parcelId,
          shipmentId: shipments.id,
          customerNr: shipments.customerNr,
          status: shipments.status,
          cancelledAt: shipments.cancelledAt,
          publishedAt: shipments.publishedAt,
        })
        .from(parcels)
        .innerJoin(shipments, eq(shipments.id, parcels.shipmentId))
        .where(inArray(parcels.parcelId, parcelIds)),

    /** Locks shipments in id order (concurrent batches never deadlock); answers the cancelled ones. */
    async lockForScans(ids: string[]): Promise<Set<string>> {
      const locked = await createBookingStore(db).lockShipments(ids);
      return new Set(locked.filter((r) => r.cancelledAt).map((r) => r.id));
    },

    /**
     * What scans tell booking (operations judges them): a parcel's pickup is its earliest scan of
     * any kind (the carrier has had it since, whatever order the scans arrive in), the shipment's
     * pickup (time and Oslo date) its first parcel's, and the first deliveries. Nothing moves an
     * invoiced shipment's pickup.
     */
    async recordScans({ scans, deliveries }: ScanFacts) {
      if (scans.length > 0) {
        const payload = JSON.stringify(scans.map((s) => ({ parcel_id: s.parcelId, time: s.time })));
        await db.execute(sql`
          update ${parcels} p set picked_up_at = s.time
            from (select parcel_id, min(time) as time
                    from json_to_recordset(${payload}::json) as r(parcel_id text, time timestamptz)
                   group by parcel_id) s
           where p.parcel_id = s.parcel_id and (p.picked_up_at is null or s.time < p.picked_up_at)`);
        const ids = [...new Set(scans.map((s) => s.shipmentId))];
        await db.execute(sql`
          update ${shipments} s
             set picked_up_at = f.first,
                 pickup_date = (f.first at time zone 'Europe/Oslo')::date,
                 version = s.version + 1
            from (select shipment_id, min(picked_up_at) as first from ${parcels}
                   where shipment_id in (${sql.join(
                     ids.map((id) => sql`${id}`),
                     sql`, `,
                   )})
                   group by shipment_id) f
           where s.id = f.shipment_id and s.picked_up_at is distinct from f.first
             -- An invoiced shipment keeps the pickup date its invoice was made with: listing and the
             -- invoice reports then agree, and no listing day loses an invoiced shipment.
             and s.invoiced_at is null`);
      }
      for (const [shipmentId, time] of earliest(deliveries)) {
        await db
          .update(shipments)
          .set({ deliveredAt: sql`least(${shipments.deliveredAt}, ${time.toISOString()}::timestamptz)` })
          .where(eq(shipments.id, shipmentId));
      }
    },
  };
}

/** A parcel's scan as booking records it: when it was made. */
export interface ScannedParcel {
  shipmentId: string;
  parcelId: string;
  time: Date;
}

/** What a batch of scans tells booking. */
export interface ScanFacts {
  /** Every accepted scan: the earliest of a parcel's is its pickup. */
  scans: readonly ScannedParcel[];
  /** Its `Delivered` scans. */
  deliveries: readonly ScannedParcel[];
}

/** The earliest time per shipment. */
function earliest(scans: readonly { shipmentId: string; time: Date }[]): Map<string, Date> {
  const first = new Map<string, Date>();
  for (const s of scans) {
    const t = first.get(s.shipmentId);
    if (!t || s.time < t) first.set(s.shipmentId, s.time);
  }
  return first;
}

import { sql } from 'drizzle-orm';
import { type Account, assertCanActFor } from '../auth/access';
import { displayName } from '../booking/addresses';
import type { Db } from '../db/client';
import { Violations } from '../lib/errors';
import { formatOslo } from '../lib/oslo-time';
import { dateOfDateTime, daysBetween } from '../schedule/calendar';

/** The longest pickup-date interval one listing may span (CONTRACT §8). */
export const MAX_LISTING_DAYS = 93;

export interface ListingQuery {
  postalcode: string;
  customerid: number;
  pickupFromDate: string;
  pickupToDate: string;
}

export interface ShipmentListRecord {
  ShipmentId: string;
  RecipientName: string | null;
  RecipientAddress1: string | null;
  RecipientAddress2: string | null;
  RecipientZip: string | null;
  RecipientPlace: string | null;
  PickupName: string | null;
  PickupAddress: string | null;
  PickupZip: string | null;
  PickupPlace: string | null;
  UnitType: string;
  PickupDate: string | null;
  PickupTimeFrom: string | null;
  PickupTimeTo: string | null;
  PickedupDate: string | null;
  NumberOfUnits: number;
  NumberOfParcels: number;
  CustomerId: number;
  Weight: number;
  IsSplitted: boolean;
}

interface Row {
  id: string;
  addresses: { Pickup: Record<string, string | null>; Recipient: Record<string, string | null> };
  unit_code: string;
  pickup_date: string | null;
  pickup_window_from: string | null;
  pickup_window_to: string | null;
  picked_up_at: string | Date | null;
  customer_nr: string;
  parcel_count: number | string;
  weight_g: number | string | null;
  pickup_days: number | string;
  picked_parcels: number | string;
}

/** `2026-11-23` of a `2026-11-23T…` parameter, or null with a violation. */
function dateParam(field: string, value: string, v: Violations): string | null {
  const date = dateOfDateTime(value);
  return v.check(field, date !== null, `The ${field} field is not a valid date.`) ? date : null;
}

export type ListingService = ReturnType<typeof createListingService>;

export function createListingService({ db }: { db: Db }) {
  return {
    /**
     * `GET /v1/shipment/list`: published, not cancelled shipments of the customer picked up at the
     * postal code with a pickup date in the interval (inclusive), by pickup date then id. Served by
     * the partial index `shipments_listing_idx`; parcel sums and pickup splits come from per-shipment
     * lateral subqueries, so the cost follows the size of the answer, not of the table.
     */
    async list(account: Account, q: ListingQuery): Promise<ShipmentListRecord[]> {
      assertCanActFor(account, q.customerid);
      const v = new Violations();
      const from = dateParam('pickupFromDate', q.pickupFromDate, v);
      const to = dateParam('pickupToDate', q.pickupToDate, v);
      if (from && to) {
        if (v.check('pickupToDate', from <= to, 'The pickupToDate must not be before the pickupFromDate.')) {
          v.check(
            'pickupToDate',
            daysBetween(from, to) <= MAX_LISTING_DAYS,
            `The interval may span at most ${MAX_LISTING_DAYS} days.`,
          );
        }
      }
      const zip = q.postalcode.padStart(4, '0');
      v.check(
        'postalcode',
        /^\d{4}$/.test(zip),
        'The postalcode field must be a postal code of up to 4 digits.',
      );
      v.throwIfAny();

      const result = await db.execute(sql`
        select s.id, s.addresses, s.unit_code, s.pickup_date::text as pickup_date, s.pickup_window_from, s.pickup_window_to,
               s.picked_up_at, s.customer_nr, p.parcel_count, p.weight_g, coalesce(k.pickup_days, 0) as pickup_days,
               coalesce(k.picked_parcels, 0) as picked_parcels
        from shipments s
        cross join lateral (
          select count(*) as parcel_count, sum(weight_g) as weight_g from parcels where shipment_id = s.id
        ) p
        left join lateral (
          select count(distinct (first_scan at time zone 'Europe/Oslo')::date) as pickup_days, count(*) as picked_parcels
          from (
            select min(time) as first_scan from scan_events
            where shipment_id = s.id and event_type = 'PickedUp' group by parcel_id
          ) f
        ) k on s.picked_up_at is not null
        where s.customer_nr = ${String(q.customerid)} and s.pickup_zip = ${zip}
          and s.pickup_date between ${from}::date and ${to}::date
          and s.status = 2 and s.cancelled_at is null
        order by s.pickup_date, s.id`);
      return (result as unknown as { rows: Row[] }).rows.map((r) => {
        const picked = Number(r.picked_parcels);
        const count = Number(r.parcel_count);
        const pickedUpAt = r.picked_up_at ? new Date(r.picked_up_at) : null;
        const at = (time: string | null) => (r.pickup_date && time ? `${r.pickup_date}T${time}:00` : null);
        return {
          ShipmentId: r.id,
          RecipientName: displayName(r.addresses.Recipient),
          RecipientAddress1: r.addresses.Recipient.Address ?? null,
          RecipientAddress2: r.addresses.Recipient.Address2 ?? null,
          RecipientZip: r.addresses.Recipient.Zip ?? null,
          RecipientPlace: r.addresses.Recipient.Place ?? null,
          PickupName: displayName(r.addresses.Pickup),
          PickupAddress: r.addresses.Pickup.Address ?? null,
          PickupZip: r.addresses.Pickup.Zip ?? null,
          PickupPlace: r.addresses.Pickup.Place ?? null,
          UnitType: r.unit_code,
          PickupDate: r.pickup_date ? `${r.pickup_date}T00:00:00` : null,
          PickupTimeFrom: at(r.pickup_window_from),
          PickupTimeTo: at(r.pickup_window_to),
          PickedupDate: pickedUpAt ? formatOslo(pickedUpAt) : null,
          NumberOfUnits: count,
          NumberOfParcels: count,
          CustomerId: Number(r.customer_nr),
          Weight: Number(r.weight_g ?? 0) / 1000,
          // Split: parcels picked up on different days, or some picked up while others are not yet.
          IsSplitted: Number(r.pickup_days) > 1 || (picked > 0 && picked < count),
        };
      });
    },
  };
}

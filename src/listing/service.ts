import { type Account, assertCanActFor } from '../auth/access';
import { displayName } from '../booking/addresses';
import type { BookingService } from '../booking/service';
import { Violations } from '../lib/errors';
import { formatOslo } from '../lib/oslo-time';
import { keysetPages, mapPages } from '../lib/pages';
import { gramsToKg } from '../lib/units';
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

/** `2026-11-23` of a `2026-11-23T…` parameter, or null with a violation. */
function dateParam(field: string, value: string, v: Violations): string | null {
  const date = dateOfDateTime(value);
  return v.check(field, date !== null, `The ${field} field is not a valid date.`) ? date : null;
}

/**
 * The listing's rules on its query: real dates, in order, at most `MAX_LISTING_DAYS` apart, and the
 * postal code. All are judged at once and thrown as one `ValidationFailed`; a parameter the schema
 * refused (absent here) is left out. Answers the pickup dates and the 4-digit postal code.
 */
export function checkListingQuery(q: Partial<ListingQuery>) {
  const v = new Violations();
  const from = q.pickupFromDate === undefined ? null : dateParam('pickupFromDate', q.pickupFromDate, v);
  const to = q.pickupToDate === undefined ? null : dateParam('pickupToDate', q.pickupToDate, v);
  if (from && to) {
    if (v.check('pickupToDate', from <= to, 'The pickupToDate must not be before the pickupFromDate.')) {
      v.check(
        'pickupToDate',
        daysBetween(from, to) <= MAX_LISTING_DAYS,
        `The interval may span at most ${MAX_LISTING_DAYS} days.`,
      );
    }
  }
  const zip = q.postalcode?.padStart(4, '0') ?? null;
  if (zip !== null)
    v.check(
      'postalcode',
      /^\d{4}$/.test(zip),
      'The postalcode field must be a postal code of up to 4 digits.',
    );
  v.throwIfAny();
  return { from, to, zip };
}

export type ListingService = ReturnType<typeof createListingService>;

export interface ListingDeps {
  booking: Pick<BookingService, 'listed'>;
  /** Shipments read, and written to the answer, at a time. */
  pageSize?: number;
}

/** Big enough that a page's statement costs little beside its rows, small enough to write at once. */
export const LISTING_PAGE_SIZE = 1000;

type Listed = Awaited<ReturnType<BookingService['listed']>>[number];

function record(r: Listed): ShipmentListRecord {
  const at = (time: string | null) => (r.pickupDate && time ? `${r.pickupDate}T${time}:00` : null);
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
    UnitType: r.unitCode,
    PickupDate: r.pickupDate ? `${r.pickupDate}T00:00:00` : null,
    PickupTimeFrom: at(r.pickupWindowFrom),
    PickupTimeTo: at(r.pickupWindowTo),
    PickedupDate: r.pickedUpAt ? formatOslo(r.pickedUpAt) : null,
    NumberOfUnits: r.parcels.count,
    NumberOfParcels: r.parcels.count,
    CustomerId: Number(r.customerNr),
    Weight: gramsToKg(r.parcels.weightG),
    IsSplitted: r.parcels.split,
  };
}

/** The shipment listing: booking's read model of published shipments, in the spec's record. */
export function createListingService({ booking, pageSize = LISTING_PAGE_SIZE }: ListingDeps) {
  return {
    /**
     * `GET /v1/shipment/list`: published, not cancelled shipments of the customer picked up at the
     * postal code with a pickup date in the interval (inclusive), by pickup date then id, a page at a
     * time: each page one indexed statement of booking's, after the last of the page before, so an
     * answer of 100 000 shipments is read and written in pieces. The query and the customer are
     * checked here, before the first page is asked for.
     */
    list(account: Account, q: ListingQuery): AsyncIterable<ShipmentListRecord[]> {
      assertCanActFor(account, q.customerid);
      const { from, to, zip } = checkListingQuery(q);
      if (!from || !to || !zip) throw new Error('checked query'); // unreachable: checked whole
      const query = { customerNr: String(q.customerid), pickupZip: zip, from, to };
      const pages = keysetPages(
        (after: { pickupDate: string; id: string } | undefined, limit) =>
          booking.listed({ ...query, after, limit }),
        // Listed by pickup date, so every row has one.
        (row) => ({ pickupDate: row.pickupDate as string, id: row.id }),
        pageSize,
      );
      return mapPages(pages, record);
    },
  };
}

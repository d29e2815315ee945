import { type Account, assertCanActFor, canActFor } from '../auth/access';
import type { DbOrTx } from '../db/client';
import type { LabelShipment } from '../labels/model';
import { bookingsTotal } from '../lib/domain-metrics';
import { DomainError, notFound, Violations } from '../lib/errors';
import type { BookingDeps, UpdateOptions, UpdateOutcome } from './deps';
import { checkMeasures, mergeParcels } from './parcels';
import { shipmentPrice } from './price';
import { priceAhead, StaleQuote } from './publish';
import { labelDestinationZip, labelShipmentOf, recordsOf } from './records';
import { payerOf, type ShipmentStatus, STATUS, STATUS_NAMES } from './rules';
import type { ShipmentRecordT, ShipmentUpdate } from './schemas';
import { createBookingReadStore, type ScanFacts } from './store/read-models';
import { createSerialSource } from './store/serials';
import { createBookingStore, type ShipmentRow } from './store/shipments';
import { validateRequest } from './validate';
import { createShipmentWriter, etagOf, writesOneStatement } from './write';

export type { BookingDeps, BookingSchedule, UpdateOptions, UpdateOutcome } from './deps';

export type BookingService = ReturnType<typeof createBookingService>;

/** How often a publishing update prices again when concurrent updates keep changing its parcels. */
const PRICE_ATTEMPTS = 6;
/**
 * How often a new shipment is written when its ids collide: a customer-given id another request
 * created at the same moment, or a generated one a client booked after its block was drawn. Each
 * retry first reads again what is booked of the numbers in hand, so only a client that books the
 * very next numbers between that reading and the write, every time, could exhaust them.
 */
const ID_ATTEMPTS = 10;

/**
 * Booking owns the shipment and its parcels: every other domain reads them through the functions
 * below (passing its own transaction where it runs in one), never through the tables.
 */
export function createBookingService(deps: BookingDeps) {
  const { db } = deps;
  const clock = deps.clock ?? (() => new Date());
  const serials = createSerialSource(deps.config.gs1Prefix);
  const writer = createShipmentWriter({ clock, prefix: deps.config.gs1Prefix, serials });

  /** A shipment the caller may see: unknown, cancelled and other customers' shipments are alike 404. */
  async function visibleShipment(account: Account, id: string): Promise<ShipmentRow> {
    const row = await createBookingStore(db).shipment(id);
    if (!row || row.cancelledAt || !canActFor(account, row.customerNr)) throw notFound(`Shipment ${id}`);
    return row;
  }

  return {
    /** `POST /Shipment/Update`: create or update, all or nothing. */
    async update(
      account: Account,
      body: ShipmentUpdate,
      options: UpdateOptions = {},
    ): Promise<UpdateOutcome> {
      assertCanActFor(account, body.CustomerId);
      const v = new Violations();
      for (const [field, messages] of Object.entries(options.violations ?? {}))
        for (const m of messages) v.add(field, m);
      const checked = await validateRequest(deps, account, body, v);
      // Two requests creating the same customer-given ShipmentId at once: the loser retries as an update.
      // A generated id a client booked after its block was drawn: the serials in hand are read again
      // and the retry draws past it (store/serials.ts). A customer-given ParcelId another shipment
      // took meanwhile: the retry names it (400).
      let priceAttempts = 0;
      let idAttempts = 0;
      for (;;) {
        try {
          const priced = v.empty ? await priceAhead(deps, body, checked) : null;
          const write = (tx: DbOrTx) => writer.apply(tx, body, checked, new Violations(v), options, priced);
          const outcome =
            options.within === undefined && writesOneStatement(body, checked)
              ? await write(db)
              : await db.transaction(async (tx) => {
                  const outcome = await write(tx);
                  await options.within?.(tx, outcome);
                  return outcome;
                });
          bookingsTotal.inc({ status: STATUS_NAMES[outcome.result.ShipmentStatus as ShipmentStatus] });
          return outcome;
        } catch (e) {
          if (
            (isUniqueViolation(e, 'shipments_pkey') || isUniqueViolation(e, 'parcels_parcel_id_idx')) &&
            ++idAttempts < ID_ATTEMPTS
          ) {
            await serials.refresh(db);
            continue;
          }
          // The parcels changed between pricing and writing (a concurrent update): price again, and
          // after a few tries answer a conflict the client can retry rather than wait on and on.
          if (e instanceof StaleQuote) {
            if (++priceAttempts < PRICE_ATTEMPTS) continue;
            throw new DomainError(
              'conflict',
              'shipment_changed',
              `Shipment ${body.ShipmentId} changed while this request priced it, ${PRICE_ATTEMPTS} times in a row; try again.`,
            );
          }
          if (isUniqueViolation(e, 'shipments_pkey')) {
            throw new DomainError(
              'conflict',
              'shipment_id_taken',
              `${body.ShipmentId ? `ShipmentId ${body.ShipmentId}` : 'The ShipmentId drawn for this request'} was taken by another request at the same moment; try again.`,
            );
          }
          if (
            isUniqueViolation(e, 'parcels_parcel_id_idx') ||
            isUniqueViolation(e, 'parcels_shipment_id_parcel_id_pk')
          ) {
            throw new DomainError(
              'conflict',
              'parcel_id_taken',
              'A ParcelId of this request, or one drawn for it, was taken by another shipment at the same moment; try again.',
            );
          }
          throw e;
        }
      }
    },

    /**
     * The stand-alone rules on a request the schema refused in part (fields it refused are absent),
     * so that one 400 lists both. Rules that need the stored shipment are left to the real update:
     * named parcels may exist there, so deletes and the publish weight rule are not judged here.
     */
    async violations(account: Account, body: ShipmentUpdate): Promise<Record<string, string[]>> {
      assertCanActFor(account, body.CustomerId);
      const v = new Violations();
      const checked = await validateRequest(deps, account, body, v);
      const requested = (body.Parcels ?? []).map((p) => (p.Delete ? {} : p));
      const { merged } = mergeParcels([], requested, v);
      const publishing = checked.status !== null && checked.status >= STATUS.ReadyForPublish;
      checkMeasures(merged, checked.product, publishing && body.ShipmentId === undefined, v);
      return v.toRecord();
    },

    /** `GET /v2/Shipment/{id}/price`: the frozen price of a published shipment, or a draft's quote. */
    async price(account: Account, id: string) {
      const row = await visibleShipment(account, id);
      return shipmentPrice(deps, row, payerOf(row).customerNr);
    },

    /** Both read paths: the shipment's parcel records, and its ETag. */
    async read(account: Account, id: string): Promise<{ records: ShipmentRecordT[]; etag: string }> {
      const row = await visibleShipment(account, id);
      const parcels = await createBookingStore(db).parcelsOf(id);
      return { records: recordsOf(row, parcels), etag: etagOf(row) };
    },

    /** A published shipment as its labels print it; drafts have no labels yet (409). */
    async labelShipment(account: Account, id: string): Promise<LabelShipment> {
      const row = await visibleShipment(account, id);
      if (row.status !== STATUS.Published) {
        throw new DomainError(
          'conflict',
          'shipment_not_published',
          `Shipment ${id} is not Published: labels exist only for booked shipments.`,
        );
      }
      const parcels = await createBookingStore(db).parcelsOf(id);
      const rules = await deps.catalog.rules();
      const zip = labelDestinationZip(row);
      const destination = zip ? await deps.postalCodes.find(zip) : null;
      return labelShipmentOf(row, parcels, rules, destination?.terminal ?? null);
    },

    /** `DELETE /v2/Shipment/{id}`: cancels a shipment until its first pickup scan. */
    async cancel(account: Account, id: string): Promise<void> {
      await db.transaction((tx) => writer.cancel(tx, account, id));
    },

    // Read models for other domains.

    /** The customer of a shipment that is not cancelled, or null (webhooks resolve registrations). */
    shipmentOwner: (shipmentId: string) => createBookingStore(db).shipmentOwner(shipmentId),

    /** The customer behind a parcel number of a shipment that is not cancelled, or null. */
    async parcelOwner(parcelId: string): Promise<string | null> {
      const row = await createBookingStore(db).shipmentOfParcel(parcelId);
      return row && !row.cancelledAt ? row.customerNr : null;
    },

    /** A visible shipment's pickup time and parcel numbers, in parcel order (the tracking view). */
    async tracking(account: Account, id: string) {
      const row = await visibleShipment(account, id);
      const parcels = await createBookingStore(db).parcelsOf(id);
      return { shipmentId: row.id, pickedUpAt: row.pickedUpAt, parcelIds: parcels.map((p) => p.parcelId) };
    },

    /**
     * The tracking view of one parcel, by the number on its label. Refused as the parcel alone, so
     * it tells nothing of another customer's shipment.
     */
    async parcelTracking(account: Account, parcelId: string) {
      const row = await createBookingStore(db).shipmentOfParcel(parcelId);
      if (!row || row.cancelledAt || !canActFor(account, row.customerNr))
        throw notFound(`Parcel ${parcelId}`);
      return { shipmentId: row.id, pickedUpAt: row.pickedUpAt, parcelIds: [parcelId] };
    },

    /**
     * Published shipments of a customer by pickup zip and pickup-date interval, with parcel sums and
     * split, a page of `limit` after `after` at a time.
     */
    listed: (q: Parameters<ReturnType<typeof createBookingReadStore>['listed']>[0]) =>
      createBookingReadStore(db).listed(q),

    /** Picked-up shipments up to `toDate` that no invoice carried yet, in the run's transaction. */
    lockInvoiceable: (tx: DbOrTx, toDate: string) => createBookingReadStore(tx).lockInvoiceable(toDate),
    invoiceableOf: (tx: DbOrTx, toDate: string, ids: readonly string[]) =>
      createBookingReadStore(tx).invoiceableOf(toDate, ids),

    /** The Oslo date of each given shipment's first delivery, for those delivered (invoice reports). */
    deliveredOn: (ids: readonly string[]) => createBookingReadStore(db).deliveredOn(ids),

    /** Marks shipments as invoiced, in the run's transaction. */
    markInvoiced: (tx: DbOrTx, ids: string[]) => createBookingReadStore(tx).markInvoiced(ids),

    /** The shipment behind each known parcel number, with its customer, status and cancellation. */
    parcelsForScans: (parcelIds: string[]) =>
      parcelIds.length ? createBookingReadStore(db).parcelsForScans(parcelIds) : Promise.resolve([]),

    /** Locks shipments for scans (in id order), in the scans' transaction; answers the cancelled ones. */
    lockForScans: (tx: DbOrTx, ids: string[]) => createBookingReadStore(tx).lockForScans(ids),

    /** What a batch of scans tells booking, in the scans' transaction: pickups and first deliveries. */
    recordScans: (tx: DbOrTx, facts: ScanFacts) => createBookingReadStore(tx).recordScans(facts),
  };
}

function isUniqueViolation(e: unknown, constraint: string): boolean {
  const err = e as { code?: string; constraint?: string; cause?: { code?: string; constraint?: string } };
  const c = err.cause ?? err;
  return (
    c.code === '23505' &&
    (c.constraint === constraint || String((c as { message?: string }).message ?? '').includes(constraint))
  );
}

export { assertChangeable, etagOf } from './write';
export type { ShipmentStatus };

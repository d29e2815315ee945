import type { Db } from '../db/client';
import { ValidationFailed, Violations } from '../lib/errors';
import { destinationZip } from './addresses';
import type { FrozenPrice, ShipmentAddresses } from './model';
import { checkMeasures, type MergedParcel, mergeParcels } from './parcels';
import type { BookingPricing } from './pricing';
import { customerNrOf, payerOf, returnAddresses, STATUS } from './rules';
import type { ShipmentUpdate } from './schemas';
import { createBookingStore, type ParcelValues } from './store/shipments';
import type { Checked } from './validate';

/** Publishing prices a shipment (and its return shipment) with the same quote as the calculators. */

type Measured = Pick<ParcelValues, 'weightG' | 'lengthCm' | 'heightCm' | 'widthCm' | 'volumeCm3'>;

/** The same parcel facts, in the same order: what a price depends on. */
const sameMeasures = (a: readonly Measured[], b: readonly Measured[]): boolean =>
  a.length === b.length &&
  a.every(
    (p, i) =>
      p.weightG === b[i]?.weightG &&
      p.lengthCm === b[i]?.lengthCm &&
      p.heightCm === b[i]?.heightCm &&
      p.widthCm === b[i]?.widthCm &&
      p.volumeCm3 === b[i]?.volumeCm3,
  );

/** Prices made before a publishing transaction, for the parcels they were made for. */
export interface PricedAhead {
  /** The parcels the prices were made for. */
  parcels: readonly Measured[];
  main: FrozenPrice;
  /** The return shipment's price, when one is generated. */
  back: FrozenPrice | null;
}

/** The parcels priced before the transaction are not the ones it would write. */
export class StaleQuote extends Error {}

/** The payer (`payerOf`) of a requested shipment. */
const payerOfRequest = (body: ShipmentUpdate) =>
  payerOf({
    customerNr: body.CustomerId,
    recipientShallPay: body.RecipientShallPay ?? false,
    recipientCustomerId: customerNrOf(body.RecipientCustomerId),
    payerCustomerId: customerNrOf(body.PayerCustomerId),
  }).customerNr;

/** The price of a shipment, its addresses and parcels, as the calculators quote it. */
export async function priceOf(
  pricing: BookingPricing,
  customerNr: string,
  payer: string,
  c: Pick<Checked, 'unitCode' | 'services'> & { productCode: string; deliveryType: 0 | 1 },
  addresses: ShipmentAddresses,
  parcels: ParcelValues[],
  pickupDate: string,
) {
  return pricing.priceShipment({
    customerNr,
    payerCustomerNr: payer,
    productCode: c.productCode,
    fromZip: addresses.Pickup.Zip,
    toZip: destinationZip(addresses),
    fromCountry: addresses.Pickup.Country ?? 'NO',
    toCountry: addresses.Recipient.Country ?? 'NO',
    deliveryType: c.deliveryType,
    services: c.services,
    unitCode: c.unitCode,
    pickupDate,
    parcels,
  });
}

/**
 * Prices a request that publishes, BEFORE its transaction: pricing reads tariffs and registers
 * through its own connection and caches, which must not wait on (or hold) the booking's locks —
 * on the embedded database, which has one connection, it would wait forever. The transaction then
 * checks that it writes exactly the parcels that were priced, and the update is retried otherwise.
 */
export async function priceAhead(
  deps: { db: Db; pricing: BookingPricing },
  body: ShipmentUpdate,
  c: Checked,
): Promise<PricedAhead | null> {
  if (c.status !== STATUS.Published || !c.product || c.deliveryType === null) return null;
  const store = createBookingStore(deps.db);
  const existing = body.ShipmentId ? await store.shipment(body.ShipmentId) : null;
  // Another customer's shipment, or one that cannot change, is refused by the write: its parcels are
  // never priced, so the answer tells nothing about them.
  if (
    existing &&
    (existing.customerNr !== body.CustomerId || existing.cancelledAt || existing.status === STATUS.Published)
  )
    return null;
  const current = existing ? await store.parcelsOf(existing.id) : [];
  const v = new Violations();
  const { merged } = mergeParcels(current, body.Parcels, v);
  // Broken parcel rules are reported by the write, with the request's own indexes: not priced here.
  checkMeasures(merged, c.product, true, v);
  if (!v.empty || merged.length === 0 || merged.length > 999) return null;
  try {
    const product = { productCode: c.product.ProductCode, deliveryType: c.deliveryType };
    return await priceMerged(deps, body, c, product, merged);
  } catch (e) {
    if (e instanceof ValidationFailed) throw new ValidationFailed(inRequestTerms(e.errors, merged));
    throw e;
  }
}

/** Pricing's `Parcels[i]` counts the merged parcels: said as the request's element, or `Parcels`. */
function inRequestTerms(errors: Record<string, string[]>, merged: readonly MergedParcel[]) {
  const out: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(errors)) {
    const m = /^Parcels\[(\d+)\]\.(\w+)$/.exec(field);
    const index = m ? merged[Number(m[1])]?.requestIndex : undefined;
    const name = !m ? field : index === null || index === undefined ? 'Parcels' : `Parcels[${index}].${m[2]}`;
    out[name] = [...new Set([...(out[name] ?? []), ...messages])];
  }
  return out;
}

async function priceMerged(
  deps: { pricing: BookingPricing },
  body: ShipmentUpdate,
  c: Checked,
  { productCode, deliveryType }: { productCode: string; deliveryType: 0 | 1 },
  merged: MergedParcel[],
): Promise<PricedAhead> {
  const main = await priceOf(
    deps.pricing,
    body.CustomerId,
    payerOfRequest(body),
    { productCode, deliveryType, services: c.services, unitCode: c.unitCode },
    c.addresses,
    merged,
    c.pickupDate,
  );
  const back = body.ShouldGenerateReturnShipment
    ? await priceOf(
        deps.pricing,
        body.CustomerId,
        body.CustomerId,
        { productCode, deliveryType: 1, services: [], unitCode: c.unitCode },
        returnAddresses(c.addresses),
        merged,
        c.returnPickupDate ?? c.pickupDate,
      )
    : null;
  return { parcels: merged, main, back };
}

/** The prices of `priceAhead`, provided they were made for exactly these parcels. */
export function pricedFor(priced: PricedAhead | null, parcels: ParcelValues[]): PricedAhead {
  if (!priced || !sameMeasures(priced.parcels, parcels)) throw new StaleQuote();
  return priced;
}

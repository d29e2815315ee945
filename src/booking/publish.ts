import type { Db } from '../db/client';
import { Violations } from '../lib/errors';
import type { FrozenPrice, ShipmentAddresses } from './model';
import { mergeParcels } from './parcels';
import type { BookingPricing } from './pricing';
import { customerNrOf, payerOf, STATUS } from './rules';
import type { ShipmentUpdate } from './schemas';
import { createBookingStore, type ParcelValues } from './store/shipments';
import type { Checked } from './validate';

/** Publishing prices a shipment (and its return shipment) with the same quote as the calculators. */

type Measured = Pick<ParcelValues, 'weightG' | 'lengthCm' | 'heightCm' | 'widthCm' | 'volumeCm3'>;

/** The parcel facts a price depends on, in order: five per parcel (compared as numbers, not text). */
const measuresOf = (parcels: readonly Measured[]): (number | null)[] => {
  const out: (number | null)[] = [];
  for (const p of parcels) out.push(p.weightG, p.lengthCm, p.heightCm, p.widthCm, p.volumeCm3);
  return out;
};

const sameMeasures = (measures: readonly (number | null)[], parcels: readonly Measured[]): boolean =>
  measures.length === parcels.length * 5 &&
  parcels.every(
    (p, i) =>
      measures[5 * i] === p.weightG &&
      measures[5 * i + 1] === p.lengthCm &&
      measures[5 * i + 2] === p.heightCm &&
      measures[5 * i + 3] === p.widthCm &&
      measures[5 * i + 4] === p.volumeCm3,
  );

/** Prices made before a publishing transaction, for the parcels they were made for. */
export interface PricedAhead {
  measures: (number | null)[];
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

/** The return shipment's addresses: from the recipient back to the return address (or the sender). */
export const returnAddresses = (a: ShipmentAddresses): ShipmentAddresses => ({
  Pickup: a.Recipient,
  Recipient: a.Return ?? a.Pickup,
  Return: null,
  PickupPoint: null,
});

async function priceOf(
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
    toZip: addresses.Recipient.Zip,
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
  const current = existing ? await store.parcelsOf(existing.id) : [];
  const { merged } = mergeParcels(current, body.Parcels, new Violations());
  if (merged.length === 0 || merged.length > 999) return null;
  const productCode = c.product.ProductCode;
  const main = await priceOf(
    deps.pricing,
    body.CustomerId,
    payerOfRequest(body),
    { productCode, deliveryType: c.deliveryType, services: c.services, unitCode: c.unitCode },
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
        c.pickupDate,
      )
    : null;
  return { measures: measuresOf(merged), main, back };
}

/** The prices of `priceAhead`, provided they were made for exactly these parcels. */
export function pricedFor(priced: PricedAhead | null, parcels: ParcelValues[]): PricedAhead {
  if (!priced || !sameMeasures(priced.measures, parcels)) throw new StaleQuote();
  return priced;
}

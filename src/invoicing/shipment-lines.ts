import { addressLine, destinationZip, displayName, EMPTY_ADDRESS } from '../booking/addresses';
import type { PayerRole } from '../booking/rules';
import type { CatalogRules } from '../catalog/service';
import type { Tx } from '../db/client';
import type { InvoicingDeps } from './deps';
import { sum } from './format';
import type { InvoicedCostLine, InvoicedShipmentFacts, invoiceShipments } from './tables';
import { atRate, type UntaxedLine, vatPercentOf } from './vat';

/** A shipment's line on an invoice: what it freezes of the shipment, and its reading checked twice. */

/** A picked-up shipment waiting to be invoiced: booking's read model, parcels summed. */
export type Invoiceable = Awaited<ReturnType<InvoicingDeps['booking']['invoiceableOf']>>[number];

/** One shipment's line of an invoice, before its number on the invoice. */
export type ShipmentLine = Omit<
  typeof invoiceShipments.$inferInsert,
  'invoiceNr' | 'lineNr' | 'isCredit' | 'lines'
> & {
  lines: InvoicedCostLine[];
};

/** A shipment's line before the invoice's VAT is shared out over its cost lines. */
export type UntaxedShipmentLine = Omit<ShipmentLine, 'lines'> & { lines: UntaxedLine[] };

/** What an invoice needs of a postal code: its terminal and its county. */
type Place = { terminal: string | null; countyCode: string | null };
const NOWHERE: Place = { terminal: null, countyCode: null };

/** Zip → its place, looked up once per zip within one run (`placeLookup`). */
export type PlaceOf = (zip: string | null) => Promise<Place>;

/**
 * Zip → serving terminal and county (the VAT area), looked up once per zip within one run's
 * transaction. A foreign zip finds nothing in the Norwegian register, as it should.
 */
export function placeLookup(postalCodes: InvoicingDeps['postalCodes'], tx: Tx): PlaceOf {
  const cache = new Map<string, Promise<Place>>();
  return (zip) => {
    if (!zip) return Promise.resolve(NOWHERE);
    let hit = cache.get(zip);
    if (!hit) {
      hit = postalCodes
        .find(zip, tx)
        .then((row) => ({ terminal: row?.terminal ?? null, countyCode: row?.countyCode ?? null }));
      cache.set(zip, hit);
    }
    return hit;
  };
}

/** Freezes what the reports show of a shipment, so later changes to registers never alter an invoice. */
async function factsOf(s: Invoiceable, rules: CatalogRules, placeOf: PlaceOf) {
  const a = s.addresses;
  const recipient = a.Recipient ?? EMPTY_ADDRESS;
  const facts: InvoicedShipmentFacts = {
    SenderCustomerNr: s.customerNr,
    SenderName: displayName(a.Pickup ?? EMPTY_ADDRESS),
    RecipientName: displayName(recipient),
    RecipientCustomerNr: s.recipientCustomerId,
    DeliveryAddress: addressLine(a.PickupPoint ?? recipient),
    PickupZip: a.Pickup?.Zip ?? null,
    // Where the parcels went: the pickup point's zip when there is one (its terminal, its VAT area).
    DeliveryZip: destinationZip({ ...a, Recipient: recipient }),
    PickupCountry: a.Pickup?.Country ?? 'NO',
    DeliveryCountry: recipient.Country ?? 'NO',
    ProductCode: s.productCode,
    ProductName: rules.product(s.productCode)?.Name ?? s.productCode,
    Services: s.services.map((code) => ({ Code: code, Name: rules.service(code)?.Name ?? code })),
    UnitCode: s.unitCode,
    NumberOfParcels: s.parcels.count,
    NumberOfUnits: s.parcels.count,
    RealWeightG: s.parcels.weightG,
    VolumeCm3: s.parcels.volumeCm3,
    ChargeableWeightKg: s.price.ChargeableWeightKg,
    LoadMeters: s.load.loadingMeters,
    SenderReference: s.senderReference,
    DeliveryDate: s.deliveryDate,
    Split: s.parcels.split,
  };
  const [pickup, delivery] = [await placeOf(facts.PickupZip), await placeOf(facts.DeliveryZip)];
  return {
    facts,
    pickupTerminal: pickup.terminal,
    deliveryTerminal: delivery.terminal,
    vatPercent: vatPercentOf(
      { country: facts.PickupCountry, countyCode: pickup.countyCode },
      { country: facts.DeliveryCountry, countyCode: delivery.countyCode },
    ),
  };
}

/** A shipment's line on its payer's invoice, its cost lines at the shipment's VAT rate. */
export async function untaxedLine(
  shipment: Invoiceable,
  payer: { customerNr: string; role: PayerRole },
  rules: CatalogRules,
  placeOf: PlaceOf,
): Promise<UntaxedShipmentLine> {
  const { facts, pickupTerminal, deliveryTerminal, vatPercent } = await factsOf(shipment, rules, placeOf);
  const lines = atRate(shipment.price.Lines, vatPercent);
  return {
    shipmentId: shipment.id,
    payerCustomerNr: payer.customerNr,
    payerRole: payer.role,
    pickupDate: shipment.pickupDate,
    pickupTerminal,
    deliveryTerminal,
    facts,
    lines,
    totalOre: sum(lines),
  };
}

/**
 * Checks a second reading of an invoice's lines against the first, from which its head (total,
 * shipments) was written: line by line the same shipment with the same total, and none missing.
 */
export function secondReading(
  invoiceNr: number,
  first: { shipmentIds: readonly string[]; totals: readonly number[] },
) {
  const changed = () => new Error(`the lines of invoice ${invoiceNr} changed between its two readings`);
  let n = 0;
  return {
    check(line: { shipmentId: string; totalOre: number }): void {
      if (line.shipmentId !== first.shipmentIds[n] || line.totalOre !== first.totals[n]) throw changed();
      n += 1;
    },
    done(): void {
      if (n !== first.shipmentIds.length) throw changed();
    },
  };
}

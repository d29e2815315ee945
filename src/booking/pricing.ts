import { ValidationFailed } from '../lib/errors';
import { gramsToKg } from '../lib/units';
import type { CostLine, ParcelMeasures, Terms } from '../pricing/engine';
import type { PricingService, QuoteRequest, QuoteResult } from '../pricing/service';
import type { FrozenPrice } from './model';
import { palletLoad } from './parcels';
import type { ParcelValues } from './store/shipments';

/**
 * Booking's side of pricing: a booked shipment is priced by the same `quote` the calculators use
 * (CONTRACT §6), and pricing's complaints are renamed here to the booking request's wire names.
 * Pricing knows nothing of booking.
 */

/** What a booked shipment's price depends on. */
export interface ShipmentPriceInput {
  customerNr: string;
  payerCustomerNr: string;
  productCode: string;
  fromZip: string | null;
  toZip: string | null;
  fromCountry: string;
  toCountry: string;
  deliveryType: 0 | 1;
  services: string[];
  unitCode: string;
  pickupDate: string;
  parcels: Pick<ParcelValues, 'weightG' | 'lengthCm' | 'heightCm' | 'widthCm' | 'volumeCm3'>[];
}

/** What booking needs from pricing: the frozen cost lines of a shipment, as the calculator quotes them. */
export interface BookingPricing {
  priceShipment(input: ShipmentPriceInput): Promise<FrozenPrice>;
}

/** Booked international shipments are priced door to door, export cleared (DDU), in NOK. */
export const BOOKING_TERMS: Terms = 'DDU';

/** Booking's pricing on top of pricing's `prepare`. */
export function createBookingPricing(pricing: Pick<PricingService, 'prepare'>): BookingPricing {
  return {
    async priceShipment(input) {
      const domestic = input.fromCountry === 'NO' && input.toCountry === 'NO';
      if (domestic && (!input.fromZip || !input.toZip)) {
        throw new ValidationFailed({
          ...(input.fromZip ? {} : { PickupZip: ['The PickupZip field is required to price the shipment.'] }),
          ...(input.toZip
            ? {}
            : { RecipientZip: ['The RecipientZip field is required to price the shipment.'] }),
        });
      }
      const prepared = await pricing.prepare(shipmentRequest(input, []));
      if (!prepared.ok) throw new ValidationFailed(renamed(prepared.errors, bookingField));
      return frozenPrice(prepared.ctx(shipmentRequest(input, input.parcels)), input);
    },
  };
}

/** Engine field → booking request field. */
function bookingField(field: string): string {
  const parcel = /^parcels\[(\d+)\]\.(\w+)$/.exec(field);
  if (parcel)
    return `Parcels[${parcel[1]}].${parcel[2] === 'volume' ? 'Volume' : capitalize(parcel[2] ?? '')}`;
  const service = /^services\[(\d+)\]$/.exec(field);
  if (service) return `Services[${service[1]}]`;
  const names: Record<string, string> = {
    customerNr: 'CustomerId',
    payerCustomerNr: 'RecipientCustomerId',
    productCode: 'ProductCode',
    senderZip: 'PickupZip',
    receiverZip: 'RecipientZip',
    unitCode: 'UnitCode',
    pickupDate: 'PickupDate',
    deliveryType: 'DeliveryType',
    weight: 'Parcels',
    volume: 'Parcels',
    numberOfUnits: 'Parcels',
    loadMeters: 'Parcels',
    palletSpaces: 'Parcels',
    request: 'Parcels',
    measures: 'Parcels',
  };
  return names[field] ?? field;
}
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const renamed = (errors: Record<string, string[] | undefined>, rename: (field: string) => string) => {
  const out: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(errors)) {
    const name = rename(field);
    out[name] = [...new Set([...(out[name] ?? []), ...(messages ?? [])])];
  }
  return out;
};

const frozenLine = (l: CostLine) => ({
  CostTypeCode: l.code,
  Description: l.description,
  AmountOre: l.amount,
});

/** The quote request of a booked shipment: domestic when both ends are in Norway, else international (DDU, NOK). */
function shipmentRequest(
  input: Omit<ShipmentPriceInput, 'parcels'>,
  list: ShipmentPriceInput['parcels'],
): QuoteRequest {
  // One literal of a fixed shape per parcel (an unknown measure is undefined, which the engine reads
  // as absent): adding properties one by one, or spreading, is the slow part of pricing 999 parcels.
  const parcels = list.map(
    (p): ParcelMeasures => ({
      weightGrams: p.weightG ?? undefined,
      lengthCm: p.lengthCm ?? undefined,
      heightCm: p.heightCm ?? undefined,
      widthCm: p.widthCm ?? undefined,
      volumeCm3: p.volumeCm3 ?? undefined,
    }),
  );
  const totalGrams = list.reduce((sum, p) => sum + (p.weightG ?? 0), 0);
  if (input.fromCountry === 'NO' && input.toCountry === 'NO') {
    const load = palletLoad(input.unitCode, list);
    return {
      kind: 'domestic',
      customerNr: input.customerNr,
      payerCustomerNr: input.payerCustomerNr,
      productCode: input.productCode,
      fromZip: input.fromZip ?? '',
      toZip: input.toZip ?? '',
      pickupDate: input.pickupDate,
      deliveryType: input.deliveryType,
      services: input.services,
      unitCode: input.unitCode,
      numberOfUnits: Math.max(1, parcels.length),
      // The shipment's total weight, as a calculator request gives it beside its parcels.
      ...(totalGrams > 0 ? { weightGrams: totalGrams } : {}),
      // A pallet shipment is charged at least by the spaces and floor its record shows.
      ...(load.palletSpaces > 0 ? { palletSpaces: load.palletSpaces, loadMeters: load.loadingMeters } : {}),
      parcels,
    };
  }
  return {
    kind: 'international',
    payerCustomerNr: input.payerCustomerNr,
    productCode: input.productCode,
    originCountry: input.fromCountry,
    destinationCountry: input.toCountry,
    pickupDate: input.pickupDate,
    weightGrams: totalGrams,
    volumeCm3: list.reduce(
      (sum, p) =>
        sum +
        (p.lengthCm && p.heightCm && p.widthCm ? p.lengthCm * p.heightCm * p.widthCm : (p.volumeCm3 ?? 0)),
      0,
    ),
    dangerousGoods: input.services.includes('12'),
    services: input.services,
    terms: BOOKING_TERMS,
    currency: 'NOK',
  };
}

function frozenPrice(result: QuoteResult, input: Omit<ShipmentPriceInput, 'parcels'>): FrozenPrice {
  if (result.ok === false) throw new ValidationFailed(renamed(result.errors, bookingField));
  if (result.ok === 'noprice') {
    throw new ValidationFailed({
      [input.fromCountry === 'NO' ? 'RecipientCountry' : 'PickupCountry']: [result.noPrice.description],
    });
  }
  if (result.kind === 'domestic') {
    const q = result.quote;
    return {
      TariffVersion: q.tariffVersion,
      Lines: [...q.freightLines, ...q.serviceLines].map(frozenLine),
      FreightOre: q.freight,
      ServicesOre: q.services,
      TotalOre: q.total,
      ChargeableWeightKg: gramsToKg(q.chargeableWeightGrams),
      Details: {
        Currency: 'NOK',
        PayerCustomerNr: input.payerCustomerNr,
        Zone: q.zone,
        FromTerminal: q.fromTerminal,
        ToTerminal: q.toTerminal,
      },
    };
  }
  const q = result.quote;
  const serviceCodes = new Set(input.services);
  const servicesOre = q.otherLines
    .filter((l) => serviceCodes.has(l.code))
    .reduce((sum, l) => sum + l.amount, 0);
  return {
    TariffVersion: q.tariffVersion,
    Lines: [q.freight, ...q.otherLines].map(frozenLine),
    FreightOre: q.total - servicesOre,
    ServicesOre: servicesOre,
    TotalOre: q.total,
    ChargeableWeightKg: gramsToKg(q.chargeableWeightGrams),
    Details: {
      Currency: 'NOK',
      PayerCustomerNr: input.payerCustomerNr,
      Zone: q.zone,
      Terms: BOOKING_TERMS,
      International: true,
    },
  };
}

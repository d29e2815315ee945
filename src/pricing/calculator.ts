import { type Account, assertCanActFor } from '../auth/access';
import { fieldWithin, Violations } from '../lib/errors';
import { andThen, type MaybePromise } from '../lib/maybe-promise';
import { dm3ToCm3OrUndefined, kgToGramsOrUndefined, toDecimal } from '../lib/units';
import type { CostLine, DomesticQuote, ParcelField } from './engine';
import { createEuropeCalculator } from './europe';
import { serviceCodes } from './quote';
import type { PriceRequestV2, PriceRequestV3, PriceResultV2, PriceResultV3 } from './schemas';
import { type PricingService, pickupDateOf, type QuoteErrors } from './service';

/**
 * The price operations of the spec on top of `pricing.quote`: wire names in, rules and access
 * checks, the engine's violations renamed to the caller's field names, the spec's shapes out.
 */

/** A domestic price request with the wire names stripped (v2 and v3 map onto it). */
interface DomesticInput {
  customerNr: string;
  senderZip: string;
  receiverZip: string;
  volume?: number;
  weight?: number;
  loadMeters?: number;
  palletSpaces?: number;
  pickupDate?: string;
  unitCode?: string;
  numberOfUnits?: number;
  productCode: string;
  services?: string[];
  parcels?: { weight?: number; length?: number; height?: number; width?: number; volume?: number }[];
  paymentCode?: string;
  payerCustomerNr?: string;
  deliveryType?: number | string;
}

/** The wire name of each input of a domestic operation. */
interface Names {
  customerNr: string;
  senderZip: string;
  receiverZip: string;
  volume: string;
  weight: string;
  loadMeters: string;
  palletSpaces: string;
  pickupDate: string;
  unitCode: string;
  numberOfUnits: string;
  productCode: string;
  services: string;
  parcels: string;
  parcel: Record<ParcelField, string>;
  paymentCode: string;
  payerCustomerNr: string;
  deliveryType: string;
}

export const V2_NAMES: Names = {
  customerNr: 'customer_nr',
  senderZip: 'sender_zip',
  receiverZip: 'receiver_zip',
  volume: 'volume_d3',
  weight: 'weight',
  loadMeters: 'number_of_load_meters',
  palletSpaces: 'number_of_pallet_spaces',
  pickupDate: 'pickup_date',
  unitCode: 'unit_code',
  numberOfUnits: 'number_of_units',
  productCode: 'product_type',
  services: 'service',
  parcels: 'parcels',
  parcel: { weight: 'weight', length: 'length', height: 'height', width: 'width', volume: 'volume' },
  paymentCode: 'payment_code',
  payerCustomerNr: 'payer_customer_nr',
  deliveryType: 'delivery_type',
};

export const V3_NAMES: Names = {
  customerNr: 'Customernr',
  senderZip: 'SenderZip',
  receiverZip: 'ReceiverZip',
  volume: 'VolumeD3',
  weight: 'Weight',
  loadMeters: 'NumberOfLoadMeters',
  palletSpaces: 'NumberOfPalletSpaces',
  pickupDate: 'PickupDate',
  unitCode: 'UnitCode',
  numberOfUnits: 'NumberOfUnits',
  productCode: 'ProductCode',
  services: 'Services',
  parcels: 'Parcels',
  parcel: { weight: 'Weight', length: 'Length', height: 'Height', width: 'Width', volume: 'Volume' },
  paymentCode: 'PaymentCode',
  payerCustomerNr: 'PayerCustomerNr',
  deliveryType: 'DeliveryType',
};

const fromV2 = (q: PriceRequestV2): DomesticInput => ({
  customerNr: q.customer_nr,
  senderZip: q.sender_zip,
  receiverZip: q.receiver_zip,
  volume: q.volume_d3,
  weight: q.weight,
  loadMeters: q.number_of_load_meters,
  palletSpaces: q.number_of_pallet_spaces,
  pickupDate: q.pickup_date,
  unitCode: q.unit_code,
  numberOfUnits: q.number_of_units,
  productCode: q.product_type,
  services: q.service,
  parcels: q.parcels,
  paymentCode: q.payment_code,
  payerCustomerNr: q.payer_customer_nr,
  deliveryType: q.delivery_type,
});

const fromV3 = (q: PriceRequestV3): DomesticInput => ({
  customerNr: q.Customernr,
  senderZip: q.SenderZip,
  receiverZip: q.ReceiverZip,
  volume: q.VolumeD3,
  weight: q.Weight,
  loadMeters: q.NumberOfLoadMeters,
  palletSpaces: q.NumberOfPalletSpaces,
  pickupDate: q.PickupDate,
  unitCode: q.UnitCode,
  numberOfUnits: q.NumberOfUnits,
  productCode: q.ProductCode,
  // The original's page spells the list `?service=1&service=2` (CONTRACT §14): both names, one list.
  services: q.Services || q.service ? [...new Set([...(q.Services ?? []), ...(q.service ?? [])])] : undefined,
  parcels: q.Parcels?.map((p) => ({
    weight: p.Weight,
    length: p.Length,
    height: p.Height,
    width: p.Width,
    volume: p.Volume,
  })),
  paymentCode: q.PaymentCode,
  payerCustomerNr: q.PayerCustomerNr,
  deliveryType: q.DeliveryType,
});

const PAYMENT_CODES: Record<string, 'S' | 'M' | 'F'> = {
  s: 'S',
  sender: 'S',
  m: 'M',
  recipient: 'M',
  f: 'F',
  other: 'F',
};
const DELIVERY_TYPES: Record<string, 0 | 1> = { '0': 0, '1': 1, private: 0, company: 1 };

/** Renames the quote's logical fields to the operation's wire names. */
function wireErrors(errors: QuoteErrors, names: Names, v: Violations): void {
  for (const [field, messages] of Object.entries(errors)) {
    const parcel = /^parcels\[(\d+)\]\.(\w+)$/.exec(field);
    const service = /^services\[(\d+)\]$/.exec(field);
    if (field === 'measures') {
      // A measure given so small that it weighs 0 g (0.1 pm of load meters: 0.185 µg).
      for (const f of [names.volume, names.weight, names.loadMeters, names.palletSpaces])
        for (const m of messages ?? []) v.add(f, m);
      continue;
    }
    const name = parcel
      ? `${names.parcels}[${parcel[1]}].${names.parcel[parcel[2] as ParcelField] ?? parcel[2]}`
      : service
        ? `${names.services}[${service[1]}]`
        : field === 'request'
          ? 'request'
          : ((names as unknown as Record<string, string>)[field] ?? field);
    for (const m of messages ?? []) v.add(name, m);
  }
}

const decimal = toDecimal;

/** Who pays: the sender unless PaymentCode says recipient or other, whose number must be given. */
function payerOf(account: Account, input: DomesticInput, names: Names, v: Violations): string {
  const payment =
    input.paymentCode === undefined ? 'S' : PAYMENT_CODES[input.paymentCode.trim().toLowerCase()];
  if (!payment) {
    v.add(
      names.paymentCode,
      `The ${names.paymentCode} field must be S (Sender), M (Recipient) or F (Other).`,
    );
  } else if (payment === 'S') {
    v.check(
      names.payerCustomerNr,
      input.payerCustomerNr === undefined || input.payerCustomerNr === input.customerNr,
      `The ${names.payerCustomerNr} field is only used with ${names.paymentCode} M (Recipient) or F (Other).`,
    );
  } else if (
    v.check(
      names.payerCustomerNr,
      input.payerCustomerNr !== undefined,
      `The ${names.payerCustomerNr} field is required when ${names.paymentCode} is M (Recipient) or F (Other).`,
    ) &&
    input.payerCustomerNr
  ) {
    assertCanActFor(account, input.payerCustomerNr);
    return input.payerCustomerNr;
  }
  return input.customerNr;
}

/**
 * No field refused: the operation itself, not the rules of a request the schema refused. (The checks
 * `refused !== NONE` spare a price answered at once from building the lists of names it would test.)
 */
const NONE: ReadonlySet<string> = new Set();

/**
 * Fields the schema refused among `fields` (or inside them), when a price is judged as the rules of a
 * request the schema refused (http/domain-rules.ts): a rule that spans one of them is not judged, as
 * it would read a refused value as absent.
 */
const anyRefused = (refused: ReadonlySet<string>, fields: readonly string[]) =>
  [...refused].some((r) => fields.some((f) => fieldWithin(r, f)));

export function createCalculator(pricing: PricingService) {
  /** A domestic quote, at once when the caches hold its context; a validation error names the caller's fields. */
  function domestic(
    account: Account,
    input: DomesticInput,
    names: Names,
    refused = NONE,
  ): MaybePromise<DomesticQuote> {
    assertCanActFor(account, input.customerNr);
    const v = new Violations();

    // Beside a refused PaymentCode or PayerCustomerNr the other is not judged (they go together).
    const payer =
      refused !== NONE && anyRefused(refused, [names.paymentCode, names.payerCustomerNr])
        ? input.customerNr
        : payerOf(account, input, names, v);

    const pickupDate = pickupDateOf(input.pickupDate, names.pickupDate, pricing.today(), v);
    let deliveryType: 0 | 1 = 1;
    if (input.deliveryType !== undefined) {
      const parsed = DELIVERY_TYPES[String(input.deliveryType).trim().toLowerCase()];
      if (
        v.check(
          names.deliveryType,
          parsed !== undefined,
          `The ${names.deliveryType} field must be 0 (Private) or 1 (Company).`,
        )
      )
        deliveryType = parsed ?? 1;
    }

    const measuresRefused =
      refused !== NONE &&
      anyRefused(refused, [names.volume, names.weight, names.loadMeters, names.palletSpaces, names.parcels]);
    const measures = [input.volume, input.weight, input.loadMeters, input.palletSpaces];
    if (!measuresRefused && !measures.some((m) => m !== undefined && m > 0)) {
      const message = `Give at least one of ${names.volume}, ${names.weight}, ${names.loadMeters} or ${names.palletSpaces} (greater than 0).`;
      for (const f of [names.volume, names.weight, names.loadMeters, names.palletSpaces]) v.add(f, message);
    }
    // The spec: a unit code is for pricing by units, "when weight or volume is not used"; then the
    // weight and the number of units must come with it. With a weight or volume it is just the unit.
    const parcelWeight = (input.parcels ?? []).some((p) => (p.weight ?? 0) > 0);
    const byWeightOrVolume = (input.weight ?? 0) > 0 || (input.volume ?? 0) > 0 || parcelWeight;
    if (input.unitCode !== undefined && !byWeightOrVolume && !measuresRefused) {
      v.add(names.weight, `The ${names.weight} field is required together with ${names.unitCode}.`);
      v.check(
        names.numberOfUnits,
        input.numberOfUnits !== undefined,
        `The ${names.numberOfUnits} field is required together with ${names.unitCode}.`,
      );
    }

    const quoted = pricing.quote({
      kind: 'domestic',
      customerNr: input.customerNr,
      payerCustomerNr: payer,
      productCode: input.productCode.toUpperCase(),
      fromZip: input.senderZip,
      toZip: input.receiverZip,
      pickupDate,
      deliveryType,
      services: serviceCodes(input.services),
      unitCode: input.unitCode?.toUpperCase(),
      numberOfUnits: input.numberOfUnits,
      weightGrams: kgToGramsOrUndefined(input.weight),
      volumeCm3: dm3ToCm3OrUndefined(input.volume),
      loadMeters: input.loadMeters,
      palletSpaces: input.palletSpaces,
      parcels: input.parcels?.map((p) => ({
        weightGrams: kgToGramsOrUndefined(p.weight),
        lengthCm: p.length,
        heightCm: p.height,
        widthCm: p.width,
        volumeCm3: dm3ToCm3OrUndefined(p.volume),
      })),
    });
    return andThen(quoted, (result) => {
      if (result.ok === false) {
        // The engine's own "no measure" rule repeats the one reported above under the field names.
        const { measures: _alreadyReported, ...errors } = result.errors;
        wireErrors(v.has(names.weight) || measuresRefused ? errors : result.errors, names, v);
      }
      v.throwIfAny();
      if (result.ok !== true || result.kind !== 'domestic') throw new Error('a domestic quote was expected');
      return result.quote;
    });
  }

  const freightView = (q: DomesticQuote) => ({
    FreightCost: decimal(q.freight),
    Details: q.freightLines.map((l: CostLine) => ({
      Description: l.description,
      Cost: decimal(l.amount),
      CostTypeCode: l.code,
    })),
  });

  return {
    /** `POST /v2/PriceCalculator` and `GET /v2/PriceCalculator`. */
    v2(account: Account, request: PriceRequestV2, refused = NONE): MaybePromise<PriceResultV2> {
      return andThen(domestic(account, fromV2(request), V2_NAMES, refused), (q) => ({
        Freight: freightView(q),
        Services: q.serviceLines.map((l) => ({
          ServiceDescription: l.description,
          ServiceCost: decimal(l.amount),
          CostTypeCode: l.code,
        })),
        Total: decimal(q.total),
      }));
    },

    /** `GET /v3/Calculate/`. */
    v3(account: Account, request: PriceRequestV3, refused = NONE): MaybePromise<PriceResultV3> {
      return andThen(domestic(account, fromV3(request), V3_NAMES, refused), (q) => ({
        Freight: freightView(q),
        Services: q.serviceLines.map((l) => ({
          ServiceName: l.description,
          ServiceCode: l.code,
          ServiceCost: decimal(l.amount),
        })),
        Total: decimal(q.total),
      }));
    },

    /** `GET /v2/europe/price`. */
    europe: createEuropeCalculator(pricing),
  };
}

export type Calculator = ReturnType<typeof createCalculator>;

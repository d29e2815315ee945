import { numberText } from '../lib/number-text';
import { basisPointsToPercent, dm3ToCm3, percentOf, wholeKgToGrams } from '../lib/units';

/**
 * What the domestic and the international engine share: the logical field names they complain
 * about, cost lines, the catalogue facts they read, which asked services a product offers, the
 * measure checks and the discount-and-energy rule.
 */

/** Logical names of the inputs the engine can complain about. */
export type Field =
  | 'request'
  /** No measure that weighs anything: the operation names its four measure fields. */
  | 'measures'
  | 'customerNr'
  | 'payerCustomerNr'
  | 'productCode'
  | 'senderZip'
  | 'receiverZip'
  | 'weight'
  | 'volume'
  | 'loadMeters'
  | 'palletSpaces'
  | 'unitCode'
  | 'numberOfUnits'
  | 'pickupDate'
  | 'deliveryType'
  | `services[${number}]`
  | `parcels[${number}].${ParcelField}`;

export type ParcelField = 'weight' | 'length' | 'height' | 'width' | 'volume';

export type Errors = Partial<Record<Field, string[]>>;

export type Result<T> = { ok: true; value: T } | { ok: false; errors: Errors };

/** One priced line: a cost type code of CONTRACT §6 (or a service code) and an amount in øre. */
export interface CostLine {
  code: string;
  description: string;
  /** Minor units (øre for domestic quotes); negative for discounts. */
  amount: number;
}

/** What the engine needs to know about a product (from the catalogue). */
export interface ProductFacts {
  code: string;
  name: string;
  unitCodes: string[];
  services: string[];
  maxParcelWeightKg: number | null;
  maxShipmentWeightKg: number | null;
  international: boolean;
}

/** What the engine needs to know about a service (from the catalogue). */
export interface ServiceFacts {
  code: string;
  name: string;
  priceBasis: 'shipment' | 'parcel';
}

export interface AgreementFacts {
  /** Freight discount in hundredths of a percent (1250 = 12.50 %). */
  discountBp: number;
  specialUnitCodes: readonly string[];
}

/** Bounds that keep every intermediate an exact integer far below 2^53 (1 000 000 kg, 10 000 000 dm³). */
export const MAX = {
  grams: wholeKgToGrams(1_000_000),
  cm3: dm3ToCm3(10_000_000),
  cm: 100_000,
  loadMeters: 10_000,
  count: 100_000,
};

export class Collector {
  readonly errors: Errors = {};
  check(field: Field, ok: boolean, message: string): boolean {
    if (!ok) this.add(field, message);
    return ok;
  }
  /** A failed rule on `field` (its message written only when it fails). */
  add(field: Field, message: string): void {
    const list = this.errors[field] ?? [];
    if (!list.includes(message)) list.push(message);
    this.errors[field] = list;
  }
  get empty() {
    return Object.keys(this.errors).length === 0;
  }
}

/** An asked service that exists and is offered with the quote's product. */
export interface OfferedService {
  code: string;
  field: `services[${number}]`;
  facts: ServiceFacts;
}

/**
 * The asked services that exist and are offered with `product`, in the order asked, a repeated code
 * once (as first asked, so it is judged and priced once); each refused one is named at its
 * `services[i]`. Without a product (an unknown code) only whether each exists is judged.
 */
export function offeredServices(
  c: Collector,
  codes: readonly string[],
  known: ReadonlyMap<string, ServiceFacts | null>,
  product: ProductFacts | null,
): OfferedService[] {
  const offered: OfferedService[] = [];
  const seen = new Set<string>();
  codes.forEach((code, i) => {
    if (seen.has(code)) return;
    seen.add(code);
    const field = `services[${i}]` as const;
    const facts = known.get(code) ?? null;
    if (!facts) c.add(field, `Service code ${code} does not exist.`);
    else if (!product) return;
    else if (!product.services.includes(code)) {
      c.add(field, `Service ${code} (${facts.name}) is not available with product ${product.code}.`);
    } else offered.push({ code, field, facts });
  });
  return offered;
}

/**
 * A measure that, when given, is a finite number within [0, max]; `shownMax` is how a message names
 * the bound (the wire's unit where that differs from the internal one).
 */
export function measure(
  c: Collector,
  field: Field,
  value: number | undefined,
  max: number,
  label: string,
  shownMax: number = max,
): number {
  if (value === undefined) return 0;
  // The messages are written only for a value that fails: a 999-parcel quote measures 5 000 values.
  if (!(Number.isFinite(value) && value >= 0)) {
    c.add(field, `The ${label} must be a number of at least 0.`);
    return 0;
  }
  if (value > max) {
    c.add(field, `The ${label} must be at most ${shownMax}.`);
    return 0;
  }
  return value;
}

const formatPercent = (bp: number) => `${numberText(basisPointsToPercent(bp))} %`;

/** A percentage from stored data as whole basis points in [0, 100 %]; anything else counts as 0. */
const basisPoints = (bp: number) => (Number.isFinite(bp) ? Math.min(10_000, Math.max(0, Math.round(bp))) : 0);

/**
 * The agreement's freight discount and the energy addition on the discounted freight, as cost lines
 * (a zero line is left out): the same rule at home and abroad.
 */
export function discountAndEnergy(freight: number, discountBp: number, energyBp: number): CostLine[] {
  const lines: CostLine[] = [];
  const bp = basisPoints(discountBp);
  const discount = percentOf(freight, bp);
  if (discount > 0) {
    lines.push({
      code: 'DISCOUNT',
      description: `Main freight discount ${formatPercent(bp)}`,
      amount: -discount,
    });
  }
  const energy = percentOf(freight - discount, energyBp);
  if (energy > 0) {
    lines.push({ code: 'ENERGY', description: `Energy addition ${formatPercent(energyBp)}`, amount: energy });
  }
  return lines;
}

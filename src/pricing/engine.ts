import { mulDivHalfUp, percentOf } from '../lib/units';
import { type CompiledTariff, tablePrice } from './tariff';

/**
 * The tariff engine: pure functions from resolved facts (tariff, product, services, agreement,
 * terminals) to priced cost lines. No I/O, no clock, no exceptions: every input either gives a quote
 * or a list of violated rules keyed by logical field names, which the service renames to the
 * caller's wire names.
 */

/** Logical names of the inputs the engine can complain about. */
export type Field =
  | 'request'
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

export interface ParcelMeasures {
  weightKg?: number;
  lengthCm?: number;
  heightCm?: number;
  widthCm?: number;
  volumeDm3?: number;
}

export interface DomesticRequest {
  weightKg?: number;
  volumeDm3?: number;
  loadMeters?: number;
  palletSpaces?: number;
  unitCode?: string;
  numberOfUnits?: number;
  parcels?: ParcelMeasures[];
  /** Service codes in request order; a repeated code is priced once. */
  services?: string[];
  /** 0 Private, 1 Company. */
  deliveryType?: 0 | 1;
  senderZip: string;
  receiverZip: string;
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

export interface DomesticContext {
  tariff: CompiledTariff;
  product: ProductFacts;
  /** Every requested service code → its catalogue facts, or null when the catalogue does not know it. */
  services: ReadonlyMap<string, ServiceFacts | null>;
  agreement: AgreementFacts;
  fromTerminal: string;
  toTerminal: string;
}

export interface DomesticQuote {
  tariffVersion: string;
  currency: 'NOK';
  productCode: string;
  fromTerminal: string;
  toTerminal: string;
  zone: number;
  /** Whole kilograms in grams: the weight the freight was priced on. */
  chargeableWeightGrams: number;
  realWeightGrams: number;
  parcelCount: number;
  freightLines: CostLine[];
  serviceLines: CostLine[];
  freight: number;
  services: number;
  total: number;
}

/** Bounds that keep every intermediate an exact integer far below 2^53. */
const MAX = { kg: 1_000_000, dm3: 10_000_000, cm: 100_000, loadMeters: 10_000, count: 100_000 };

const SPECIAL_UNIT = /^(5[1-9]|[6-9][0-9])$/;

class Collector {
  readonly errors: Errors = {};
  check(field: Field, ok: boolean, message: string): boolean {
    if (!ok) {
      const list = this.errors[field] ?? [];
      if (!list.includes(message)) list.push(message);
      this.errors[field] = list;
    }
    return ok;
  }
  get empty() {
    return Object.keys(this.errors).length === 0;
  }
}

/** A measure that, when given, is a finite number within [0, max]. */
function measure(c: Collector, field: Field, value: number | undefined, max: number, label: string): number {
  if (value === undefined) return 0;
  if (!c.check(field, Number.isFinite(value) && value >= 0, `The ${label} must be a number of at least 0.`))
    return 0;
  if (!c.check(field, value <= max, `The ${label} must be at most ${max}.`)) return 0;
  return value;
}

const kgToGrams = (kg: number) => Math.round(kg * 1000);
const parcelField = (i: number, name: ParcelField) => `parcels[${i}].${name}` as const;
/** Rounds up to whole kilograms, as carriers price. */
const wholeKgGrams = (grams: number) => Math.ceil(grams / 1000) * 1000;
const volumeGrams = (cm3: number, gramsPerDm3: number) => Math.ceil((cm3 * gramsPerDm3) / 1000);

/** The domestic zone between two terminals, or null when the tariff does not connect them. */
export const zoneBetween = (tariff: CompiledTariff, from: string, to: string): number | null =>
  tariff.zones.get(from)?.get(to) ?? null;

function postalAddition(tariff: CompiledTariff, zip: string, kind: 'delivery' | 'pickup') {
  let best: { name: string; amount: number } | null = null;
  for (const a of tariff.postalAdditions) {
    if (zip >= a.from && zip <= a.to && a[kind] > (best?.amount ?? 0))
      best = { name: a.name, amount: a[kind] };
  }
  return best;
}

const formatPercent = (bp: number) => `${(bp / 100).toString()} %`;

/** A percentage from stored data as whole basis points in [0, 100 %]; anything else counts as 0. */
const basisPoints = (bp: number) => (Number.isFinite(bp) ? Math.min(10_000, Math.max(0, Math.round(bp))) : 0);

/**
 * The agreement's freight discount and the energy addition on the discounted freight, as cost lines
 * (a zero line is left out): the same rule at home and abroad.
 */
function discountAndEnergy(freight: number, discountBp: number, energyBp: number): CostLine[] {
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

/**
 * Prices a domestic shipment. Chargeable weight is the largest of real weight, volume × the
 * product's volume factor, load meters × the load-meter weight, pallet spaces × the pallet-space
 * weight and units × the unit weight, rounded up to whole kg. With parcels, each parcel is priced on
 * its own chargeable weight and the freight is their sum, never less than the price of the
 * shipment-level measures.
 */
export function priceDomestic(req: DomesticRequest, ctx: DomesticContext): Result<DomesticQuote> {
  const c = new Collector();
  const { tariff, product } = ctx;
  const table = tariff.products.get(product.code);
  c.check(
    'productCode',
    table !== undefined,
    `Product ${product.code} has no price in the tariff valid from ${tariff.validFrom}.`,
  );

  const weightKg = measure(c, 'weight', req.weightKg, MAX.kg, 'weight');
  const volumeDm3 = measure(c, 'volume', req.volumeDm3, MAX.dm3, 'volume');
  const loadMeters = measure(c, 'loadMeters', req.loadMeters, MAX.loadMeters, 'number of load meters');
  const palletSpaces = measure(c, 'palletSpaces', req.palletSpaces, MAX.count, 'number of pallet spaces');
  const units =
    req.numberOfUnits === undefined
      ? 1
      : measure(c, 'numberOfUnits', req.numberOfUnits, MAX.count, 'number of units');
  if (req.numberOfUnits !== undefined) {
    c.check(
      'numberOfUnits',
      Number.isInteger(req.numberOfUnits) && req.numberOfUnits >= 1,
      'The number of units must be a whole number of at least 1.',
    );
  }
  if (req.palletSpaces !== undefined) {
    c.check(
      'palletSpaces',
      Number.isInteger(req.palletSpaces),
      'The number of pallet spaces must be a whole number.',
    );
  }

  // Unit code: KL/PL where the product carries them, 51–99 only under the customer's agreement.
  let unitGrams = 0;
  if (req.unitCode !== undefined) {
    const code = req.unitCode;
    if (SPECIAL_UNIT.test(code)) {
      c.check(
        'unitCode',
        ctx.agreement.specialUnitCodes.includes(code),
        `Special unit code ${code} is not in the customer's agreement.`,
      );
    } else if (
      c.check(
        'unitCode',
        code === 'KL' || code === 'PL',
        'The unit code must be KL, PL or a special code 51–99.',
      )
    ) {
      c.check(
        'unitCode',
        product.unitCodes.length === 0 || product.unitCodes.includes(code),
        `Product ${product.code} does not carry unit code ${code}.`,
      );
    }
    const perUnit = tariff.unitWeightGrams.get(code);
    if (code === 'KL' || code === 'PL' || SPECIAL_UNIT.test(code)) {
      c.check(
        'unitCode',
        perUnit !== undefined,
        `Unit code ${code} has no unit weight in the tariff valid from ${tariff.validFrom}.`,
      );
    }
    unitGrams = (perUnit ?? 0) * units;
  }

  // Parcels: each parcel's own chargeable weight.
  const parcels = req.parcels ?? [];
  c.check('request', parcels.length <= 999, 'At most 999 parcels.');
  const gramsPerDm3 = table?.volumeGramsPerDm3 ?? 0;
  const parcelWeights: number[] = [];
  let parcelRealGrams = 0;
  parcels.slice(0, 999).forEach((p, i) => {
    const w = measure(c, parcelField(i, 'weight'), p.weightKg, MAX.kg, 'weight');
    const l = measure(c, parcelField(i, 'length'), p.lengthCm, MAX.cm, 'length');
    const h = measure(c, parcelField(i, 'height'), p.heightCm, MAX.cm, 'height');
    const wd = measure(c, parcelField(i, 'width'), p.widthCm, MAX.cm, 'width');
    const vol = measure(c, parcelField(i, 'volume'), p.volumeDm3, MAX.dm3, 'volume');
    const dims = l > 0 && h > 0 && wd > 0;
    c.check(
      parcelField(i, 'weight'),
      w > 0 || dims || vol > 0,
      'Give the parcel’s weight or its length, height and width.',
    );
    if (product.maxParcelWeightKg !== null) {
      c.check(
        parcelField(i, 'weight'),
        w <= product.maxParcelWeightKg,
        `A parcel of product ${product.code} weighs at most ${product.maxParcelWeightKg} kg.`,
      );
    }
    // Dimensions win over a stated volume: they are what the terminal measures.
    const cm3 = dims ? Math.min(Math.round(l * h * wd), MAX.dm3 * 1000) : Math.round(vol * 1000);
    const real = kgToGrams(w);
    parcelRealGrams += real;
    parcelWeights.push(wholeKgGrams(Math.max(real, volumeGrams(cm3, gramsPerDm3))));
  });

  const shipmentGrams = Math.max(
    kgToGrams(weightKg),
    volumeGrams(Math.round(volumeDm3 * 1000), gramsPerDm3),
    Math.round(loadMeters * 1000) * (tariff.loadMeterGrams / 1000),
    palletSpaces * tariff.palletSpaceGrams,
    unitGrams,
  );
  c.check(
    'request',
    shipmentGrams > 0 || parcels.length > 0,
    'Give at least one of the weight, volume, load meters or pallet spaces.',
  );
  const realWeightGrams = Math.max(kgToGrams(weightKg), parcelRealGrams);
  if (product.maxShipmentWeightKg !== null) {
    c.check(
      'weight',
      realWeightGrams <= product.maxShipmentWeightKg * 1000,
      `A shipment of product ${product.code} weighs at most ${product.maxShipmentWeightKg} kg.`,
    );
  }

  const zone = zoneBetween(tariff, ctx.fromTerminal, ctx.toTerminal);
  c.check(
    'receiverZip',
    zone !== null,
    `The tariff valid from ${tariff.validFrom} has no zone from terminal ${ctx.fromTerminal} to ${ctx.toTerminal}.`,
  );

  // Services: known, offered with the product, priced; a repeated code is priced once.
  const serviceLines: CostLine[] = [];
  const parcelCount = parcels.length > 0 ? parcels.length : Math.max(1, Math.trunc(units));
  const seen = new Set<string>();
  (req.services ?? []).forEach((code, i) => {
    const field = `services[${i}]` as const;
    if (seen.has(code)) return;
    seen.add(code);
    const facts = ctx.services.get(code) ?? null;
    if (!c.check(field, facts !== null, `Service code ${code} does not exist.`) || !facts) return;
    if (
      !c.check(
        field,
        product.services.includes(code),
        `Service ${code} (${facts.name}) is not available with product ${product.code}.`,
      )
    )
      return;
    const price = tariff.services.get(code);
    if (
      !c.check(
        field,
        price !== undefined,
        `Service ${code} has no price in the tariff valid from ${tariff.validFrom}.`,
      )
    )
      return;
    serviceLines.push({
      code,
      description: facts.name,
      amount: (price ?? 0) * (facts.priceBasis === 'parcel' ? parcelCount : 1),
    });
  });

  if (!c.empty || !table || zone === null) return { ok: false, errors: c.errors };

  const shipmentKg = wholeKgGrams(shipmentGrams) / 1000;
  const parcelsPrice = parcelWeights.reduce((sum, g) => sum + tablePrice(table, zone, g / 1000), 0);
  const shipmentPrice = shipmentGrams > 0 ? tablePrice(table, zone, shipmentKg) : 0;
  const freightAmount = Math.max(parcelsPrice, shipmentPrice);
  const chargeableWeightGrams = Math.max(
    parcelWeights.reduce((a, b) => a + b, 0),
    wholeKgGrams(shipmentGrams),
  );

  const lines: CostLine[] = [{ code: 'FREIGHT', description: 'Agreed freight', amount: freightAmount }];
  lines.push(...discountAndEnergy(freightAmount, ctx.agreement.discountBp, tariff.energyBp));
  const toll = tariff.tollRoad[zone - 1] ?? 0;
  if (toll > 0) lines.push({ code: 'TOLL', description: 'Toll road addition', amount: toll });
  if (req.deliveryType === 0 && table.privateDelivery) {
    lines.push({ code: 'PRIVATE', description: 'Private delivery', amount: table.privateDelivery });
  }
  const delivery = postalAddition(tariff, req.receiverZip, 'delivery');
  if (delivery && delivery.amount > 0) {
    lines.push({
      code: 'DELIVERY_ADD',
      description: `Delivery addition (${delivery.name})`,
      amount: delivery.amount,
    });
  }
  const pickup = postalAddition(tariff, req.senderZip, 'pickup');
  if (pickup && pickup.amount > 0) {
    lines.push({
      code: 'PICKUP_ADD',
      description: `Pickup addition (${pickup.name})`,
      amount: pickup.amount,
    });
  }

  const freight = lines.reduce((sum, l) => sum + l.amount, 0);
  const services = serviceLines.reduce((sum, l) => sum + l.amount, 0);
  return {
    ok: true,
    value: {
      tariffVersion: tariff.validFrom,
      currency: 'NOK',
      productCode: product.code,
      fromTerminal: ctx.fromTerminal,
      toTerminal: ctx.toTerminal,
      zone,
      chargeableWeightGrams,
      realWeightGrams,
      parcelCount,
      freightLines: lines,
      serviceLines,
      freight,
      services,
      total: freight + services,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// International

export type Terms = 'EXW' | 'CPT' | 'DDU' | 'DDP';
export type ShipmentCategory = 'import' | 'export' | 'domestic';

export interface InternationalRequest {
  originCountry: string;
  destinationCountry: string;
  /** Gross weight in grams. */
  weightGrams: number;
  /** Volume in cm³ (m³ × 10⁶), 0 when not given. */
  volumeCm3: number;
  dangerousGoods: boolean;
  services: string[];
  terms: Terms;
}

export interface InternationalContext {
  tariff: CompiledTariff;
  product: ProductFacts;
  services: ReadonlyMap<string, ServiceFacts | null>;
  /** The payer's freight discount in hundredths of a percent (its agreement). */
  discountBp: number;
  currency: string;
  /** Units of `currency` per 1 EUR, scaled by 10⁶ (NOK 11.7135 → 11_713_500). */
  ratePerEurMicro: number | null;
}

export interface InternationalQuote {
  tariffVersion: string;
  currency: string;
  zone: number;
  chargeableWeightGrams: number;
  /** The freight line and the other cost lines, in minor units of `currency`. */
  freight: CostLine;
  otherLines: CostLine[];
  otherCosts: number;
  total: number;
}

/** A reason no international price exists: an answer, not a malformed request. */
export interface NoPrice {
  code: string;
  description: string;
}

export type InternationalResult =
  | { ok: true; value: InternationalQuote }
  | { ok: false; errors: Errors }
  | { ok: 'noprice'; noPrice: NoPrice };

/** The shipment category the countries imply; null for cross-trade (neither end in Norway). */
export function categoryOf(origin: string, destination: string): ShipmentCategory | null {
  if (origin === 'NO' && destination === 'NO') return 'domestic';
  if (origin === 'NO') return 'export';
  if (destination === 'NO') return 'import';
  return null;
}

const DANGEROUS_GOODS_SERVICE = '12';

/**
 * Prices an international shipment in EUR by the foreign country's zone and chargeable weight
 * (max of gross weight and volume × the tariff's kg per m³, whole kg), adds the lines the terms and
 * dangerous goods call for, and converts every line to the requested currency.
 */
export function priceInternational(
  req: InternationalRequest,
  ctx: InternationalContext,
): InternationalResult {
  const intl = ctx.tariff.international;
  const noPrice = (code: string, description: string): InternationalResult => ({
    ok: 'noprice',
    noPrice: { code, description },
  });
  const c = new Collector();
  const weightGrams = measure(c, 'weight', req.weightGrams, MAX.kg * 1000, 'weight');
  const volumeCm3 = measure(c, 'volume', req.volumeCm3, MAX.dm3 * 1000, 'volume');
  c.check('weight', weightGrams > 0, 'The weight must be greater than 0.');
  const serviceLinesEur: CostLine[] = [];
  let dangerous = req.dangerousGoods;
  const seen = new Set<string>();
  req.services.forEach((code, i) => {
    const field = `services[${i}]` as const;
    if (seen.has(code)) return;
    seen.add(code);
    const facts = ctx.services.get(code) ?? null;
    if (!c.check(field, facts !== null, `Service code ${code} does not exist.`) || !facts) return;
    if (
      !c.check(
        field,
        ctx.product.services.includes(code),
        `Service ${code} (${facts.name}) is not available with product ${ctx.product.code}.`,
      )
    )
      return;
    // The dangerous-goods service is the dangerous-goods fee, once per shipment.
    if (code === DANGEROUS_GOODS_SERVICE) {
      dangerous = true;
      return;
    }
    const price = intl?.services.get(code);
    if (intl && !c.check(field, price !== undefined, `Service ${code} has no international price.`)) return;
    serviceLinesEur.push({ code, description: facts.name, amount: price ?? 0 });
  });
  if (!c.empty) return { ok: false, errors: c.errors };

  if (!intl)
    return noPrice('NO_TARIFF', `The tariff valid from ${ctx.tariff.validFrom} has no international prices.`);
  const table = intl.products.get(ctx.product.code);
  if (!table) return noPrice('NO_PRODUCT_PRICE', `Product ${ctx.product.code} has no international price.`);
  const category = categoryOf(req.originCountry, req.destinationCountry);
  if (category === 'domestic') {
    return noPrice('DOMESTIC_ROUTE', 'Both countries are NO: use GET /v3/Calculate/ for domestic prices.');
  }
  const foreign = category === 'export' ? req.destinationCountry : req.originCountry;
  const zone = category === null ? undefined : intl.countryZones.get(foreign);
  if (zone === undefined) {
    return noPrice(
      'NO_ROUTE',
      `No price exists from ${req.originCountry} to ${req.destinationCountry} with product ${ctx.product.code}.`,
    );
  }
  const max = ctx.product.maxShipmentWeightKg;
  if (max !== null && weightGrams > max * 1000) {
    return noPrice(
      'WEIGHT_ABOVE_MAXIMUM',
      `Product ${ctx.product.code} carries at most ${max} kg per shipment.`,
    );
  }
  if (ctx.ratePerEurMicro === null) {
    return noPrice('NO_EXCHANGE_RATE', `No exchange rate from EUR to ${ctx.currency} is in force.`);
  }

  const volumeWeight = Math.ceil((Math.round(volumeCm3) * intl.volumeKgPerM3) / 1000);
  const chargeableWeightGrams = wholeKgGrams(Math.max(Math.round(weightGrams), volumeWeight));
  const doorToDoor = tablePrice(table, zone, chargeableWeightGrams / 1000);
  const freightEur =
    req.terms === 'CPT' ? doorToDoor - percentOf(doorToDoor, table.destinationDeliveryBp) : doorToDoor;

  const others = discountAndEnergy(freightEur, ctx.discountBp, intl.energyBp);
  const fees = intl.fees;
  if (req.terms === 'EXW')
    others.push({ code: 'ORIGIN_PICKUP', description: 'Pickup at origin (EXW)', amount: fees.originPickup });
  if (req.terms === 'DDU' || req.terms === 'DDP') {
    others.push({
      code: 'EXPORT_CLEARANCE',
      description: 'Export customs clearance',
      amount: fees.exportClearance,
    });
  }
  if (req.terms === 'DDP') {
    others.push({
      code: 'IMPORT_CLEARANCE',
      description: 'Import customs clearance',
      amount: fees.importClearance,
    });
    others.push({ code: 'DUTY_HANDLING', description: 'Duty and VAT handling', amount: fees.dutyHandling });
  }
  if (dangerous)
    others.push({ code: 'DANGEROUS_GOODS', description: 'Dangerous goods', amount: fees.dangerousGoods });
  others.push(...serviceLinesEur);

  const rate = ctx.ratePerEurMicro;
  const convert = (l: CostLine): CostLine => ({ ...l, amount: mulDivHalfUp(l.amount, rate, 1_000_000) });
  const freight = convert({ code: 'FREIGHT', description: `Freight, zone ${zone}`, amount: freightEur });
  const otherLines = others.map(convert);
  const otherCosts = otherLines.reduce((sum, l) => sum + l.amount, 0);
  return {
    ok: true,
    value: {
      tariffVersion: ctx.tariff.validFrom,
      currency: ctx.currency,
      zone,
      chargeableWeightGrams,
      freight,
      otherLines,
      otherCosts,
      total: freight.amount + otherCosts,
    },
  };
}

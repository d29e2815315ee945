import {
  ceilToWholeKg,
  cm3ToM3,
  gramsOfVolumeAtKgPerM3,
  mulDivHalfUp,
  percentOf,
  wholeKgToGrams,
} from '../lib/units';
import { type CompiledTariff, tablePrice } from './compiled-tariff';
import {
  Collector,
  type CostLine,
  discountAndEnergy,
  type Errors,
  MAX,
  measure,
  offeredServices,
  type ProductFacts,
  type ServiceFacts,
} from './measures';
import { DANGEROUS_GOODS_SERVICE } from './tariff';

/** The international engine: EUR prices by the foreign country's zone, converted to the asked currency. */

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

/**
 * Prices an international shipment in EUR by the foreign country's zone and chargeable weight
 * (max of gross weight and volume × the tariff's kg per m³, whole kg), adds the lines the terms and
 * dangerous goods call for, and converts every line to the requested currency. The customer's
 * discount and the energy surcharge are then taken of the converted freight.
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
  const weightGrams = measure(c, 'weight', req.weightGrams, MAX.grams, 'weight');
  const volumeCm3 = measure(c, 'volume', req.volumeCm3, MAX.cm3, 'volume', cm3ToM3(MAX.cm3));
  c.check('weight', weightGrams > 0, 'The weight must be greater than 0.');
  const serviceLinesEur: CostLine[] = [];
  let dangerous = req.dangerousGoods;
  for (const { code, field, facts } of offeredServices(c, req.services, ctx.services, ctx.product)) {
    // The dangerous-goods service is the dangerous-goods fee, once per shipment.
    if (code === DANGEROUS_GOODS_SERVICE) {
      dangerous = true;
      continue;
    }
    const price = intl?.services.get(code);
    if (intl && price === undefined) {
      c.add(field, `Service ${code} has no international price.`);
      continue;
    }
    serviceLinesEur.push({ code, description: facts.name, amount: price ?? 0 });
  }
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
  if (max !== null && weightGrams > wholeKgToGrams(max)) {
    return noPrice(
      'WEIGHT_ABOVE_MAXIMUM',
      `Product ${ctx.product.code} carries at most ${max} kg per shipment.`,
    );
  }
  if (ctx.ratePerEurMicro === null) {
    return noPrice('NO_EXCHANGE_RATE', `No exchange rate from EUR to ${ctx.currency} is in force.`);
  }

  const volumeWeight = gramsOfVolumeAtKgPerM3(volumeCm3, intl.volumeKgPerM3);
  const chargeableWeightGrams = ceilToWholeKg(Math.max(Math.round(weightGrams), volumeWeight));
  const doorToDoor = tablePrice(table, zone, chargeableWeightGrams);
  const freightEur =
    req.terms === 'CPT' ? doorToDoor - percentOf(doorToDoor, table.destinationDeliveryBp) : doorToDoor;

  const others: CostLine[] = [];
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
  // The discount and energy lines on the converted freight, as at home: each is its stated share of
  // the freight line it is shown beside (converted from EUR, they missed it by up to a few øre).
  const otherLines = [
    ...discountAndEnergy(freight.amount, ctx.discountBp, intl.energyBp),
    ...others.map(convert),
  ];
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

import {
  ceilToWholeKg,
  cm3ToDm3,
  gramsOfLoadMeters,
  gramsOfVolume,
  gramsToKg,
  wholeKgToGrams,
} from '../lib/units';
import { type CompiledTariff, tablePrice } from './compiled-tariff';
import {
  type AgreementFacts,
  Collector,
  type CostLine,
  discountAndEnergy,
  MAX,
  measure,
  offeredServices,
  type ParcelField,
  type ProductFacts,
  type Result,
  type ServiceFacts,
} from './measures';

/** The domestic engine: a shipment between two Norwegian terminals priced on the tariff in NOK. */

/** One parcel's measures: grams, centimetres, cm³. */
export interface ParcelMeasures {
  weightGrams?: number;
  lengthCm?: number;
  heightCm?: number;
  widthCm?: number;
  volumeCm3?: number;
}

/** A domestic shipment's measures (grams, cm³, load meters, counts) and what else prices it. */
export interface DomesticRequest {
  weightGrams?: number;
  volumeCm3?: number;
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

const SPECIAL_UNIT = /^(5[1-9]|[6-9][0-9])$/;

type ParcelFieldName = `parcels[${number}].${ParcelField}`;
const parcelFieldNames = new Map<ParcelField, ParcelFieldName[]>();
/** `parcels[i].name`, written once per process and index: a 999-parcel quote names 7 000 fields. */
const parcelField = (i: number, name: ParcelField): ParcelFieldName => {
  let names = parcelFieldNames.get(name);
  if (!names) {
    names = [];
    parcelFieldNames.set(name, names);
  }
  names[i] ??= `parcels[${i}].${name}`;
  return names[i];
};

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

  const weightGrams = measure(c, 'weight', req.weightGrams, MAX.grams, 'weight', gramsToKg(MAX.grams));
  const volumeCm3 = measure(c, 'volume', req.volumeCm3, MAX.cm3, 'volume', cm3ToDm3(MAX.cm3));
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
    const w = measure(c, parcelField(i, 'weight'), p.weightGrams, MAX.grams, 'weight', gramsToKg(MAX.grams));
    const l = measure(c, parcelField(i, 'length'), p.lengthCm, MAX.cm, 'length');
    const h = measure(c, parcelField(i, 'height'), p.heightCm, MAX.cm, 'height');
    const wd = measure(c, parcelField(i, 'width'), p.widthCm, MAX.cm, 'width');
    const vol = measure(c, parcelField(i, 'volume'), p.volumeCm3, MAX.cm3, 'volume', cm3ToDm3(MAX.cm3));
    const dims = l > 0 && h > 0 && wd > 0;
    c.check(
      parcelField(i, 'weight'),
      w > 0 || dims || vol > 0,
      'Give the parcel’s weight or its length, height and width.',
    );
    if (product.maxParcelWeightKg !== null && w > wholeKgToGrams(product.maxParcelWeightKg)) {
      c.add(
        parcelField(i, 'weight'),
        `A parcel of product ${product.code} weighs at most ${product.maxParcelWeightKg} kg.`,
      );
    }
    // Dimensions win over a stated volume: they are what the terminal measures.
    const cm3 = dims ? Math.min(Math.round(l * h * wd), MAX.cm3) : vol;
    parcelRealGrams += w;
    parcelWeights.push(ceilToWholeKg(Math.max(w, gramsOfVolume(cm3, gramsPerDm3))));
  });

  const shipmentGrams = Math.max(
    weightGrams,
    gramsOfVolume(volumeCm3, gramsPerDm3),
    gramsOfLoadMeters(loadMeters, tariff.loadMeterGrams),
    palletSpaces * tariff.palletSpaceGrams,
    unitGrams,
  );
  c.check(
    'measures',
    shipmentGrams > 0 || parcels.length > 0,
    'Give at least one of the weight, volume, load meters or pallet spaces.',
  );
  const realWeightGrams = Math.max(weightGrams, parcelRealGrams);
  if (product.maxShipmentWeightKg !== null) {
    c.check(
      'weight',
      realWeightGrams <= wholeKgToGrams(product.maxShipmentWeightKg),
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
  for (const { code, field, facts } of offeredServices(c, req.services ?? [], ctx.services, product)) {
    const price = tariff.services.get(code);
    if (price === undefined) {
      c.add(field, `Service ${code} has no price in the tariff valid from ${tariff.validFrom}.`);
      continue;
    }
    serviceLines.push({
      code,
      description: facts.name,
      amount: price * (facts.priceBasis === 'parcel' ? parcelCount : 1),
    });
  }

  if (!c.empty || !table || zone === null) return { ok: false, errors: c.errors };

  const shipmentChargeable = ceilToWholeKg(shipmentGrams);
  const parcelsPrice = parcelWeights.reduce((sum, g) => sum + tablePrice(table, zone, g), 0);
  const shipmentPrice = shipmentGrams > 0 ? tablePrice(table, zone, shipmentChargeable) : 0;
  const freightAmount = Math.max(parcelsPrice, shipmentPrice);
  const chargeableWeightGrams = Math.max(
    parcelWeights.reduce((a, b) => a + b, 0),
    shipmentChargeable,
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

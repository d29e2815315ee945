import {
  parseAmount,
  parseKgAsGrams,
  parsePercentAsBasisPoints,
  started100Kg,
  wholeKgToGrams,
} from '../lib/units';
import type { TariffDocument } from './tariff';

/** A tariff document compiled for the engine, and the price-table lookup the engine prices with. */

/** A price table with amounts in minor units, ready for lookups. */
export interface CompiledPriceTable {
  minimum: number;
  /** Band upper bounds (whole kg) in grams, ascending. */
  upToGrams: number[];
  /** prices[band][zone - 1] */
  prices: number[][];
  per100Above: number[];
}

export interface CompiledDomesticProduct extends CompiledPriceTable {
  volumeGramsPerDm3: number;
  privateDelivery: number | null;
}

export interface CompiledInternationalProduct extends CompiledPriceTable {
  destinationDeliveryBp: number;
}

export interface CompiledInternational {
  volumeKgPerM3: number;
  zoneCount: number;
  countryZones: Map<string, number>;
  energyBp: number;
  fees: {
    originPickup: number;
    exportClearance: number;
    importClearance: number;
    dutyHandling: number;
    dangerousGoods: number;
  };
  products: Map<string, CompiledInternationalProduct>;
  services: Map<string, number>;
}

export interface PostalAdditionRange {
  name: string;
  from: string;
  to: string;
  delivery: number;
  pickup: number;
}

/** A tariff version in the form the engine reads: integers, maps, nothing to parse per request. */
export interface CompiledTariff {
  validFrom: string;
  zoneCount: number;
  zones: Map<string, Map<string, number>>;
  loadMeterGrams: number;
  palletSpaceGrams: number;
  unitWeightGrams: Map<string, number>;
  energyBp: number;
  tollRoad: number[];
  postalAdditions: PostalAdditionRange[];
  products: Map<string, CompiledDomesticProduct>;
  services: Map<string, number>;
  international: CompiledInternational | null;
}

const amount = (s: string) => parseAmount(s) ?? 0;

function compileTable(table: {
  MinimumPrice: string;
  Bands: { UpToKg: number; Prices: string[] }[];
  Per100KgAbove: string[];
}): CompiledPriceTable {
  return {
    minimum: amount(table.MinimumPrice),
    upToGrams: table.Bands.map((b) => wholeKgToGrams(b.UpToKg)),
    prices: table.Bands.map((b) => b.Prices.map(amount)),
    per100Above: table.Per100KgAbove.map(amount),
  };
}

/** Turns a valid document into the engine's form. Call `assertTariffRules` first. */
export function compileTariff(doc: TariffDocument): CompiledTariff {
  const intl = doc.International;
  return {
    validFrom: doc.ValidFrom,
    zoneCount: doc.ZoneCount,
    zones: new Map(Object.entries(doc.Zones).map(([from, row]) => [from, new Map(Object.entries(row))])),
    loadMeterGrams: wholeKgToGrams(doc.ChargeableWeight.LoadMeterKg),
    palletSpaceGrams: wholeKgToGrams(doc.ChargeableWeight.PalletSpaceKg),
    unitWeightGrams: new Map(
      Object.entries(doc.ChargeableWeight.UnitWeightsKg).map(([k, kg]) => [k, wholeKgToGrams(kg)]),
    ),
    energyBp: parsePercentAsBasisPoints(doc.EnergyPercent) ?? 0,
    tollRoad: doc.TollRoadByZone.map(amount),
    postalAdditions: doc.PostalAdditions.map((a) => ({
      name: a.Name,
      from: a.FromZip,
      to: a.ToZip,
      delivery: amount(a.Delivery),
      pickup: amount(a.Pickup),
    })),
    products: new Map(
      Object.entries(doc.Products).map(([code, p]) => [
        code,
        {
          ...compileTable(p),
          volumeGramsPerDm3: parseKgAsGrams(p.VolumeFactorKgPerDm3) ?? 0,
          privateDelivery: p.PrivateDelivery === null ? null : amount(p.PrivateDelivery),
        },
      ]),
    ),
    services: new Map(Object.entries(doc.Services).map(([code, price]) => [code, amount(price)])),
    international: intl
      ? {
          volumeKgPerM3: intl.VolumeFactorKgPerM3,
          zoneCount: intl.ZoneCount,
          countryZones: new Map(Object.entries(intl.CountryZones)),
          energyBp: parsePercentAsBasisPoints(intl.EnergyPercent) ?? 0,
          fees: {
            originPickup: amount(intl.Fees.OriginPickup),
            exportClearance: amount(intl.Fees.ExportClearance),
            importClearance: amount(intl.Fees.ImportClearance),
            dutyHandling: amount(intl.Fees.DutyHandling),
            dangerousGoods: amount(intl.Fees.DangerousGoods),
          },
          products: new Map(
            Object.entries(intl.Products).map(([code, p]) => [
              code,
              {
                ...compileTable(p),
                destinationDeliveryBp: parsePercentAsBasisPoints(p.DestinationDeliveryPercent) ?? 0,
              },
            ]),
          ),
          services: new Map(Object.entries(intl.Services).map(([code, price]) => [code, amount(price)])),
        }
      : null,
  };
}

/**
 * Price of a chargeable weight (whole kg, in grams) in a zone: the first band that holds it, or above
 * the last band the last band’s price plus the per-100-kg rate for every started 100 kg; never below
 * the minimum.
 */
export function tablePrice(table: CompiledPriceTable, zone: number, grams: number): number {
  const z = zone - 1;
  const last = table.upToGrams.length - 1;
  for (let b = 0; b <= last; b++) {
    if (grams <= (table.upToGrams[b] ?? 0)) return Math.max(table.prices[b]?.[z] ?? 0, table.minimum);
  }
  const over = grams - (table.upToGrams[last] ?? 0);
  const price = (table.prices[last]?.[z] ?? 0) + started100Kg(over) * (table.per100Above[z] ?? 0);
  return Math.max(price, table.minimum);
}

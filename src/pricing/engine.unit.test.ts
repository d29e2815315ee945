import { describe, expect, test } from 'vitest';
import {
  dm3ToCm3,
  formatAmount,
  kgToGrams,
  mulDivHalfUp,
  parseAmount,
  parseScaled,
  percentOf,
  wholeKgToGrams,
} from '../lib/units';
import { compileTariff, tablePrice } from './compiled-tariff';
import {
  type AgreementFacts,
  type DomesticContext,
  type DomesticRequest,
  type InternationalContext,
  type InternationalRequest,
  type ProductFacts,
  priceDomestic,
  priceInternational,
  type ServiceFacts,
} from './engine';
import { assertTariffRules, type TariffDocument } from './tariff';

/**
 * A small tariff to compute quotes by hand. Two terminals A and B, two zones (A–A and B–B zone 1,
 * A–B zone 2). Product P: minimum 120.00; up to 10 kg 100.00 / 150.00, up to 100 kg 300.00 / 400.00
 * (zone 1 / zone 2), each started 100 kg above 50.00 / 70.00. Energy 10 %, toll 10.00 / 20.00.
 */
const SMALL_TARIFF: TariffDocument = {
  ValidFrom: '2026-01-01',
  Currency: 'NOK',
  ZoneCount: 2,
  Zones: { A: { A: 1, B: 2 }, B: { A: 2, B: 1 } },
  ChargeableWeight: { LoadMeterKg: 1850, PalletSpaceKg: 750, UnitWeightsKg: { KL: 0, PL: 150, '51': 250 } },
  EnergyPercent: '10.00',
  TollRoadByZone: ['10.00', '20.00'],
  PostalAdditions: [{ Name: 'Island', FromZip: '9000', ToZip: '9009', Delivery: '100.00', Pickup: '50.00' }],
  Products: {
    P: {
      VolumeFactorKgPerDm3: '0.333',
      PrivateDelivery: '80.00',
      MinimumPrice: '120.00',
      Bands: [
        { UpToKg: 10, Prices: ['100.00', '150.00'] },
        { UpToKg: 100, Prices: ['300.00', '400.00'] },
      ],
      Per100KgAbove: ['50.00', '70.00'],
    },
  },
  Services: { S1: '15.00', S2: '7.50' },
  International: {
    Currency: 'EUR',
    VolumeFactorKgPerM3: 333,
    ZoneCount: 2,
    CountryZones: { SE: 1, DE: 2 },
    EnergyPercent: '10.00',
    Fees: {
      OriginPickup: '20.00',
      ExportClearance: '30.00',
      ImportClearance: '40.00',
      DutyHandling: '15.00',
      DangerousGoods: '50.00',
    },
    Products: {
      E: {
        DestinationDeliveryPercent: '20.00',
        MinimumPrice: '25.00',
        Bands: [
          { UpToKg: 10, Prices: ['25.00', '40.00'] },
          { UpToKg: 100, Prices: ['100.00', '150.00'] },
        ],
        Per100KgAbove: ['30.00', '45.00'],
      },
    },
    Services: { S1: '5.00' },
  },
};

const tariff = compileTariff(SMALL_TARIFF);
const P: ProductFacts = {
  code: 'P',
  name: 'Product P',
  unitCodes: ['KL', 'PL'],
  services: ['S1', 'S2', '12'],
  maxParcelWeightKg: 1000,
  maxShipmentWeightKg: 20000,
  international: false,
};
const E: ProductFacts = {
  ...P,
  code: 'E',
  name: 'Euro',
  unitCodes: ['KL'],
  maxShipmentWeightKg: 1000,
  international: true,
};
const services = new Map<string, ServiceFacts | null>([
  ['S1', { code: 'S1', name: 'Service one', priceBasis: 'shipment' }],
  ['S2', { code: 'S2', name: 'Service two', priceBasis: 'parcel' }],
  ['S3', { code: 'S3', name: 'Not with P', priceBasis: 'shipment' }],
  ['12', { code: '12', name: 'Dangerous goods', priceBasis: 'parcel' }],
]);
const noAgreement: AgreementFacts = { discountBp: 0, specialUnitCodes: [] };

const ctx = (over: Partial<DomesticContext> = {}): DomesticContext => ({
  tariff,
  product: P,
  services,
  agreement: noAgreement,
  fromTerminal: 'A',
  toTerminal: 'A',
  ...over,
});
const req = (over: Partial<DomesticRequest>): DomesticRequest => ({
  senderZip: '0150',
  receiverZip: '5003',
  deliveryType: 1,
  ...over,
});
const lines = (r: ReturnType<typeof priceDomestic>) =>
  r.ok ? Object.fromEntries(r.value.freightLines.map((l) => [l.code, l.amount])) : r.errors;

describe('money', () => {
  test('amounts parse and print exactly, in øre', () => {
    expect(parseAmount('129.5')).toBe(12950);
    expect(parseAmount('0.05')).toBe(5);
    expect(parseAmount('1.234')).toBeNull();
    expect(parseAmount('-1')).toBeNull();
    expect(formatAmount(12950)).toBe('129.50');
    expect(formatAmount(-1240)).toBe('-12.40');
    expect(formatAmount(7)).toBe('0.07');
    expect(parseScaled('0.333', 3)).toBe(333);
    expect(parseScaled('11.7135', 6)).toBe(11_713_500);
  });

  test('percentages round half up, on the magnitude for negatives', () => {
    expect(percentOf(12345, 1000)).toBe(1235); // 1234.5 → 1235
    expect(percentOf(12344, 1000)).toBe(1234); // 1234.4 → 1234
    expect(mulDivHalfUp(-15, 1, 10)).toBe(-2); // -1.5 → -2
    expect(mulDivHalfUp(2000, 10_953_700, 1_000_000)).toBe(21907); // 21907.4
  });
});

describe('price tables', () => {
  const table = tariff.products.get('P');
  if (!table) throw new Error('P missing');
  test('the first band that holds the weight, never below the minimum', () => {
    expect(tablePrice(table, 1, wholeKgToGrams(1))).toBe(12000); // band 100.00 < minimum 120.00
    expect(tablePrice(table, 2, wholeKgToGrams(10))).toBe(15000); // 10 kg is still in the first band
    expect(tablePrice(table, 2, wholeKgToGrams(11))).toBe(40000);
  });
  test('above the last band: the last band plus each started 100 kg', () => {
    expect(tablePrice(table, 1, wholeKgToGrams(101))).toBe(30000 + 5000); // 1 kg over → one started 100 kg
    expect(tablePrice(table, 1, wholeKgToGrams(200))).toBe(30000 + 5000);
    expect(tablePrice(table, 2, wholeKgToGrams(201))).toBe(40000 + 2 * 7000);
  });
});

describe('domestic quotes, computed by hand', () => {
  test('25 kg from A to B: band ≤100 kg zone 2, energy 10 %, toll zone 2', () => {
    // FREIGHT 400.00; ENERGY 10 % of 400.00 = 40.00; TOLL 20.00 → 460.00.
    const r = priceDomestic(req({ weightGrams: kgToGrams(25) }), ctx({ toTerminal: 'B' }));
    expect(lines(r)).toEqual({ FREIGHT: 40000, ENERGY: 4000, TOLL: 2000 });
    expect(r.ok && r.value.total).toBe(46000);
    expect(r.ok && r.value.zone).toBe(2);
  });

  test('volume beats weight: 100 dm³ × 0.333 = 33.3 → 34 kg; 12.5 % discount before energy', () => {
    // FREIGHT 300.00 (zone 1, ≤100 kg); DISCOUNT 12.5 % = −37.50; ENERGY 10 % of 262.50 = 26.25;
    // TOLL 10.00 → 298.75.
    const r = priceDomestic(
      req({ weightGrams: kgToGrams(5), volumeCm3: dm3ToCm3(100) }),
      ctx({ agreement: { discountBp: 1250, specialUnitCodes: [] } }),
    );
    expect(lines(r)).toEqual({ FREIGHT: 30000, DISCOUNT: -3750, ENERGY: 2625, TOLL: 1000 });
    expect(r.ok && r.value.chargeableWeightGrams).toBe(34_000);
    expect(r.ok && r.value.freight).toBe(29875);
  });

  test('load meters: 0.5 × 1850 = 925 kg → 300.00 + 9 started 100 kg × 50.00', () => {
    // FREIGHT 750.00; ENERGY 75.00; TOLL 10.00 → 835.00.
    const r = priceDomestic(req({ loadMeters: 0.5, weightGrams: kgToGrams(400) }), ctx());
    expect(lines(r)).toEqual({ FREIGHT: 75000, ENERGY: 7500, TOLL: 1000 });
    expect(r.ok && r.value.total).toBe(83500);
  });

  test('load meters are not rounded before the weight: 0.5405 × 1850 = 999.925 → 1000 kg, 1.0811 → 2001 kg', () => {
    const chargeable = (loadMeters: number) => {
      const r = priceDomestic(req({ loadMeters }), ctx());
      return r.ok && r.value.chargeableWeightGrams;
    };
    expect(chargeable(0.5405)).toBe(1_000_000);
    expect(chargeable(1.0811)).toBe(2_001_000);
    // A float's error above an exact kilogram adds nothing: 0.4 × 1850 is 740 kg, 0.7 × 1850 is 1295.
    expect(chargeable(0.4)).toBe(740_000);
    expect(chargeable(0.7)).toBe(1_295_000);
    expect(chargeable(0.1 + 0.2)).toBe(555_000);
  });

  test('pallet spaces: 1 × 750 kg → 300.00 + 7 × 50.00', () => {
    const r = priceDomestic(req({ palletSpaces: 1 }), ctx());
    expect(r.ok && r.value.freightLines[0]?.amount).toBe(65000);
  });

  test('units: 3 × PL at 150 kg = 450 kg beats the real 100 kg', () => {
    // 450 kg: 300.00 + 4 started 100 kg × 50.00 = 500.00.
    const r = priceDomestic(req({ weightGrams: kgToGrams(100), unitCode: 'PL', numberOfUnits: 3 }), ctx());
    expect(r.ok && r.value.freightLines[0]?.amount).toBe(50000);
    expect(r.ok && r.value.chargeableWeightGrams).toBe(450_000);
  });

  test('parcels are priced one by one; per-parcel services count the parcels', () => {
    // Parcel 1: 2 kg → 100.00, raised to the minimum 120.00. Parcel 2: 50×40×30 cm = 60 dm³ ×
    // 0.333 = 19.98 → 20 kg → 300.00. Sum 420.00 beats the shipment's 22 kg (300.00).
    // ENERGY 42.00, TOLL 10.00 → freight 472.00. S1 15.00 once, S2 7.50 × 2 parcels = 15.00.
    // Total 502.00.
    const r = priceDomestic(
      req({
        weightGrams: kgToGrams(22),
        parcels: [{ weightGrams: kgToGrams(2) }, { lengthCm: 50, widthCm: 40, heightCm: 30 }],
        services: ['S1', 'S2', 'S1'],
      }),
      ctx(),
    );
    expect(lines(r)).toEqual({ FREIGHT: 42000, ENERGY: 4200, TOLL: 1000 });
    expect(r.ok && r.value.serviceLines).toEqual([
      { code: 'S1', description: 'Service one', amount: 1500 },
      { code: 'S2', description: 'Service two', amount: 1500 },
    ]);
    expect(r.ok && r.value.total).toBe(50200);
  });

  test('private delivery and the postal additions of both ends', () => {
    // 1 kg → minimum 120.00; ENERGY 12.00; TOLL 10.00; PRIVATE 80.00; DELIVERY_ADD 100.00 (to 9005);
    // PICKUP_ADD 50.00 (from 9001) → 372.00.
    const r = priceDomestic(
      req({ weightGrams: kgToGrams(1), deliveryType: 0, senderZip: '9001', receiverZip: '9005' }),
      ctx(),
    );
    expect(lines(r)).toEqual({
      FREIGHT: 12000,
      ENERGY: 1200,
      TOLL: 1000,
      PRIVATE: 8000,
      DELIVERY_ADD: 10000,
      PICKUP_ADD: 5000,
    });
    expect(r.ok && r.value.total).toBe(37200);
  });

  test('a special unit code needs the agreement, and then prices on its unit weight', () => {
    const without = priceDomestic(
      req({ weightGrams: kgToGrams(10), unitCode: '51', numberOfUnits: 2 }),
      ctx(),
    );
    expect(without.ok).toBe(false);
    expect(!without.ok && without.errors.unitCode).toEqual([
      "Special unit code 51 is not in the customer's agreement.",
    ]);
    // 2 × 250 kg = 500 kg: 300.00 + 4 × 50.00 = 500.00.
    const withIt = priceDomestic(
      req({ weightGrams: kgToGrams(10), unitCode: '51', numberOfUnits: 2 }),
      ctx({ agreement: { discountBp: 0, specialUnitCodes: ['51'] } }),
    );
    expect(withIt.ok && withIt.value.freightLines[0]?.amount).toBe(50000);
  });

  test('every broken rule is reported under its field', () => {
    const r = priceDomestic(
      req({
        weightGrams: kgToGrams(-1),
        volumeCm3: dm3ToCm3(Number.NaN),
        unitCode: 'XX',
        services: ['S1', 'NOPE', 'S3'],
        parcels: [{ weightGrams: kgToGrams(2000) }, {}],
      }),
      ctx({ toTerminal: 'Z' }),
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.keys(r.errors).sort()).toEqual(
      [
        'weight',
        'volume',
        'unitCode',
        'services[1]',
        'services[2]',
        'parcels[0].weight',
        'parcels[1].weight',
        'receiverZip',
      ].sort(),
    );
    expect(r.errors['services[1]']).toEqual(['Service code NOPE does not exist.']);
    expect(r.errors['services[2]']).toEqual(['Service S3 (Not with P) is not available with product P.']);
  });

  test('a service offered with the product but not priced by the tariff is an error on it', () => {
    const r = priceDomestic(req({ weightGrams: kgToGrams(1), services: ['S1', '12'] }), ctx());
    expect(!r.ok && r.errors).toEqual({
      'services[1]': ['Service 12 has no price in the tariff valid from 2026-01-01.'],
    });
  });

  test('a product the tariff does not price is an error on the product', () => {
    const r = priceDomestic(req({ weightGrams: kgToGrams(1) }), ctx({ product: { ...P, code: 'Q' } }));
    expect(!r.ok && r.errors.productCode).toEqual([
      'Product Q has no price in the tariff valid from 2026-01-01.',
    ]);
  });
});

describe('international quotes, computed by hand', () => {
  const ictx = (over: Partial<InternationalContext> = {}): InternationalContext => ({
    tariff,
    product: E,
    services,
    discountBp: 0,
    currency: 'NOK',
    ratePerEurMicro: 11_500_000,
    ...over,
  });
  const ireq = (over: Partial<InternationalRequest>): InternationalRequest => ({
    originCountry: 'NO',
    destinationCountry: 'DE',
    weightGrams: 12_000,
    volumeCm3: 0,
    dangerousGoods: false,
    services: [],
    terms: 'DDU',
    ...over,
  });

  test('DDP to Germany in NOK: volume weight, clearance both ways and duty handling', () => {
    // 0.05 m³ × 333 = 16.65 → 17 kg beats 12 kg: zone 2, ≤100 kg = EUR 150.00. ENERGY 10 % = 15.00;
    // export 30.00, import 40.00, duty handling 15.00. At 11.5 NOK/EUR: 1725.00 + 172.50 + 345.00 +
    // 460.00 + 172.50 = 2875.00.
    const r = priceInternational(ireq({ volumeCm3: 50_000, terms: 'DDP' }), ictx());
    expect(r.ok).toBe(true);
    if (r.ok !== true) return;
    expect(r.value.chargeableWeightGrams).toBe(17_000);
    expect(r.value.freight.amount).toBe(172_500);
    expect(r.value.otherLines.map((l) => [l.code, l.amount])).toEqual([
      ['ENERGY', 17_250],
      ['EXPORT_CLEARANCE', 34_500],
      ['IMPORT_CLEARANCE', 46_000],
      ['DUTY_HANDLING', 17_250],
    ]);
    expect(formatAmount(r.value.total)).toBe('2875.00');
  });

  test('CPT from Sweden prices to the terminal only; dangerous goods add their fee', () => {
    // 5 kg, zone 1: EUR 25.00 less the 20 % destination delivery = 20.00; ENERGY 2.00;
    // dangerous goods 50.00 → EUR 72.00.
    const r = priceInternational(
      ireq({
        originCountry: 'SE',
        destinationCountry: 'NO',
        weightGrams: 5000,
        terms: 'CPT',
        dangerousGoods: true,
      }),
      ictx({ currency: 'EUR', ratePerEurMicro: 1_000_000 }),
    );
    expect(r.ok === true && r.value.freight.amount).toBe(2000);
    expect(r.ok === true && formatAmount(r.value.total)).toBe('72.00');
  });

  test('EXW adds the origin pickup; each line is converted and rounded on its own', () => {
    // EXW: freight 25.00 × 10.9537 = 273.8425 → 273.84 SEK; ORIGIN_PICKUP 20.00 → 219.074 → 219.07;
    // then of the SEK freight: DISCOUNT 10 % = 27.384 → −27.38, ENERGY 10 % of 246.46 = 24.646 → 24.65.
    const r = priceInternational(
      ireq({ originCountry: 'SE', destinationCountry: 'NO', weightGrams: 5000, terms: 'EXW' }),
      ictx({ currency: 'SEK', ratePerEurMicro: 10_953_700, discountBp: 1000 }),
    );
    expect(r.ok).toBe(true);
    if (r.ok !== true) return;
    expect(r.value.freight.amount).toBe(27384);
    expect(r.value.otherLines.map((l) => [l.code, l.amount])).toEqual([
      ['DISCOUNT', -2738],
      ['ENERGY', 2465],
      ['ORIGIN_PICKUP', 21907],
    ]);
    expect(r.value.total).toBe(27384 - 2738 + 2465 + 21907);
  });

  test('the discount and energy are their percentages of the converted freight, as at home', () => {
    // 25.00 EUR × 11.80 = 295.00 NOK; DISCOUNT 12.5 % = 36.875 → −36.88; ENERGY 10 % of 258.12 =
    // 25.812 → 25.81. (Converted from EUR they were 3.13 × 11.80 = 36.93 and 2.19 × 11.80 = 25.84,
    // no percentage of the 295.00 shown.)
    const r = priceInternational(
      ireq({ originCountry: 'SE', destinationCountry: 'NO', weightGrams: 5000, terms: 'EXW' }),
      ictx({ currency: 'NOK', ratePerEurMicro: 11_800_000, discountBp: 1250 }),
    );
    if (r.ok !== true) throw new Error('priced expected');
    expect(r.value.freight.amount).toBe(29_500);
    expect(r.value.otherLines.slice(0, 2).map((l) => [l.code, l.amount])).toEqual([
      ['DISCOUNT', -3688],
      ['ENERGY', 2581],
    ]);
  });

  test('no price: unknown country, cross-trade, too heavy, no exchange rate', () => {
    const code = (r: ReturnType<typeof priceInternational>) => (r.ok === 'noprice' ? r.noPrice.code : r.ok);
    expect(code(priceInternational(ireq({ destinationCountry: 'FR' }), ictx()))).toBe('NO_ROUTE');
    expect(code(priceInternational(ireq({ originCountry: 'SE' }), ictx()))).toBe('NO_ROUTE');
    expect(code(priceInternational(ireq({ weightGrams: 1_000_001 }), ictx()))).toBe('WEIGHT_ABOVE_MAXIMUM');
    expect(code(priceInternational(ireq({}), ictx({ ratePerEurMicro: null })))).toBe('NO_EXCHANGE_RATE');
    expect(code(priceInternational(ireq({ destinationCountry: 'NO' }), ictx()))).toBe('DOMESTIC_ROUTE');
  });

  test('services: a repeated code is priced once; one not offered or without an international price is named', () => {
    const twice = priceInternational(ireq({ services: ['S1', 'S1'] }), ictx());
    expect(twice.ok === true && twice.value.otherLines.filter((l) => l.code === 'S1')).toEqual([
      { code: 'S1', description: 'Service one', amount: 5750 },
    ]);
    const refused = priceInternational(ireq({ services: ['S1', 'S3', 'S2', 'S3'] }), ictx());
    expect(refused.ok === false && refused.errors).toEqual({
      'services[1]': ['Service S3 (Not with P) is not available with product E.'],
      'services[2]': ['Service S2 has no international price.'],
    });
  });

  test('unknown services are errors, not a missing price', () => {
    const r = priceInternational(ireq({ services: ['S1', 'NOPE'] }), ictx());
    expect(r.ok === false && r.errors).toEqual({ 'services[1]': ['Service code NOPE does not exist.'] });
  });
});

describe('tariff validation', () => {
  test('the small tariff is valid', () => {
    expect(() => assertTariffRules(SMALL_TARIFF)).not.toThrow();
  });

  test('a broken tariff names every broken field', () => {
    const broken: TariffDocument = structuredClone(SMALL_TARIFF);
    broken.ValidFrom = '2026-02-30';
    delete (broken.Zones.B as Record<string, number>).A;
    broken.TollRoadByZone = ['20.00', '10.00'];
    const p = broken.Products.P;
    if (!p) throw new Error('P missing');
    p.Bands[1] = { UpToKg: 5, Prices: ['90.00', '80.00'] };
    try {
      assertTariffRules(broken);
      expect.unreachable();
    } catch (e) {
      const errors = (e as { errors: Record<string, string[]> }).errors;
      expect(Object.keys(errors).sort()).toEqual(
        [
          'ValidFrom',
          'Zones.B.A',
          'TollRoadByZone',
          'Products.P.Bands[1].UpToKg',
          'Products.P.Bands[1].Prices',
          'Products.P.Bands[1].Prices[0]',
          'Products.P.Bands[1].Prices[1]',
        ].sort(),
      );
    }
  });
});

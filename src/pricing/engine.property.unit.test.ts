import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { dm3ToCm3, dm3ToCm3OrUndefined, kgToGrams } from '../lib/units';
import { compileTariff } from './compiled-tariff';
import {
  type DomesticContext,
  type DomesticQuote,
  type DomesticRequest,
  type ProductFacts,
  priceDomestic,
  priceInternational,
  type ServiceFacts,
  type Terms,
} from './engine';
import { assertTariffRules, type TariffDocument } from './tariff';

/** Properties of the engine, checked on the shipped demo tariff. */
const document = JSON.parse(
  readFileSync(new URL('../../data/tariffs/2026-01-01.json', import.meta.url), 'utf8'),
) as TariffDocument;
assertTariffRules(document);
const tariff = compileTariff(document);
const catalog = JSON.parse(
  readFileSync(new URL('../../data/catalog/catalog.json', import.meta.url), 'utf8'),
) as {
  Products: {
    ProductCode: string;
    Name: string;
    UnitCodes: string[];
    Services: string[];
    MaxParcelWeightKg: number;
    MaxShipmentWeightKg: number;
    International: boolean;
  }[];
  Services: { ServiceCode: string; Name: string; PriceBasis: 'shipment' | 'parcel' }[];
};
const products = new Map<string, ProductFacts>(
  catalog.Products.map((p) => [
    p.ProductCode,
    {
      code: p.ProductCode,
      name: p.Name,
      unitCodes: p.UnitCodes,
      services: p.Services,
      maxParcelWeightKg: p.MaxParcelWeightKg,
      maxShipmentWeightKg: p.MaxShipmentWeightKg,
      international: p.International,
    },
  ]),
);
const services = new Map<string, ServiceFacts | null>(
  catalog.Services.map((s) => [
    s.ServiceCode,
    { code: s.ServiceCode, name: s.Name, priceBasis: s.PriceBasis },
  ]),
);
const terminals = [...tariff.zones.keys()];
const domesticProducts = [...tariff.products.keys()].filter((c) => products.has(c));

const productOf = (code: string): ProductFacts => {
  const p = products.get(code);
  if (!p) throw new Error(`no product ${code}`);
  return p;
};

const ctxFor = (code: string, from: string, to: string, discountBp: number): DomesticContext => ({
  tariff,
  product: productOf(code),
  services,
  agreement: { discountBp, specialUnitCodes: ['51'] },
  fromTerminal: from,
  toTerminal: to,
});

const quoteOf = (req: DomesticRequest, ctx: DomesticContext): DomesticQuote => {
  const r = priceDomestic(req, ctx);
  if (!r.ok) throw new Error(`no quote: ${JSON.stringify(r.errors)}`);
  return r.value;
};

/** A valid shipment: the product's limits respected, measures within a product's reach. */
const shipment = fc.record({
  product: fc.constantFrom(...domesticProducts),
  from: fc.constantFrom(...terminals),
  to: fc.constantFrom(...terminals),
  discountBp: fc.integer({ min: 0, max: 5000 }),
  weightKg: fc.integer({ min: 1, max: 300 }),
  volumeDm3: fc.option(fc.integer({ min: 0, max: 2000 }), { nil: undefined }),
  senderZip: fc.constantFrom('0150', '5003', '8063', '9173', '9590'),
  receiverZip: fc.constantFrom('0150', '7010', '8064', '9176', '5547'),
  deliveryType: fc.constantFrom<0 | 1>(0, 1),
  parcels: fc.option(
    fc.array(
      fc.record({
        weightKg: fc.integer({ min: 1, max: 30 }),
        lengthCm: fc.integer({ min: 1, max: 100 }),
        heightCm: fc.integer({ min: 1, max: 60 }),
        widthCm: fc.integer({ min: 1, max: 60 }),
      }),
      { minLength: 1, maxLength: 8 },
    ),
    { nil: undefined },
  ),
});
type Shipment = typeof shipment extends fc.Arbitrary<infer T> ? T : never;

const requestOf = (s: Shipment, services: string[] = []): DomesticRequest => ({
  weightGrams: kgToGrams(s.weightKg),
  volumeCm3: dm3ToCm3OrUndefined(s.volumeDm3),
  parcels: s.parcels?.map(({ weightKg, ...p }) => ({ ...p, weightGrams: kgToGrams(weightKg) })),
  senderZip: s.senderZip,
  receiverZip: s.receiverZip,
  deliveryType: s.deliveryType,
  services,
});

describe('engine properties (demo tariff)', () => {
  test('more weight is never cheaper', () => {
    fc.assert(
      fc.property(shipment, fc.integer({ min: 0, max: 3000 }), (s, extra) => {
        const ctx = ctxFor(s.product, s.from, s.to, s.discountBp);
        const lighter = quoteOf(requestOf(s), ctx);
        const max = productOf(s.product).maxShipmentWeightKg ?? Number.POSITIVE_INFINITY;
        const heavier = quoteOf(requestOf({ ...s, weightKg: Math.min(max, s.weightKg + extra) }), ctx);
        expect(heavier.total).toBeGreaterThanOrEqual(lighter.total);
      }),
      { numRuns: 400 },
    );
  });

  test('a heavier parcel is never cheaper', () => {
    fc.assert(
      fc.property(shipment, fc.nat(50), fc.integer({ min: 1, max: 40 }), (s, pick, extra) => {
        const parcels = s.parcels ?? [{ weightKg: 1, lengthCm: 10, heightCm: 10, widthCm: 10 }];
        const i = pick % parcels.length;
        const max = productOf(s.product).maxParcelWeightKg ?? Number.POSITIVE_INFINITY;
        const heavier = parcels.map((p, j) =>
          j === i ? { ...p, weightKg: Math.min(max, (p.weightKg ?? 0) + extra) } : p,
        );
        const ctx = ctxFor(s.product, s.from, s.to, s.discountBp);
        const a = quoteOf(requestOf({ ...s, parcels }), ctx);
        const b = quoteOf(requestOf({ ...s, parcels: heavier }), ctx);
        expect(b.total).toBeGreaterThanOrEqual(a.total);
      }),
      { numRuns: 300 },
    );
  });

  test('a longer distance (a higher zone from the same terminal) is never cheaper', () => {
    fc.assert(
      fc.property(shipment, fc.constantFrom(...terminals), (s, other) => {
        const zone = (to: string) => tariff.zones.get(s.from)?.get(to) ?? 0;
        const [near, far] = zone(s.to) <= zone(other) ? [s.to, other] : [other, s.to];
        const a = quoteOf(requestOf(s), ctxFor(s.product, s.from, near, s.discountBp));
        const b = quoteOf(requestOf(s), ctxFor(s.product, s.from, far, s.discountBp));
        expect(b.total).toBeGreaterThanOrEqual(a.total);
      }),
      { numRuns: 400 },
    );
  });

  test('adding a service adds exactly its price (per parcel where the service is priced per parcel)', () => {
    fc.assert(
      fc.property(shipment, fc.nat(100), (s, pick) => {
        const product = productOf(s.product);
        const offered = product.services.filter((c) => tariff.services.has(c));
        fc.pre(offered.length > 0);
        const code = offered[pick % offered.length] ?? '';
        const ctx = ctxFor(s.product, s.from, s.to, s.discountBp);
        const without = quoteOf(requestOf(s), ctx);
        const withIt = quoteOf(requestOf(s, [code]), ctx);
        const parcels = s.parcels?.length ?? 1;
        const each = tariff.services.get(code) ?? 0;
        const expected = services.get(code)?.priceBasis === 'parcel' ? each * parcels : each;
        expect(withIt.total - without.total).toBe(expected);
        expect(withIt.freight).toBe(without.freight);
      }),
      { numRuns: 300 },
    );
  });

  test('Total always equals the sum of the lines, to the øre, in integers', () => {
    fc.assert(
      fc.property(
        shipment,
        fc.subarray(['11', '12', '15', '16', '17', '35', '41', '42', '18']),
        (s, codes) => {
          const product = productOf(s.product);
          const r = priceDomestic(
            requestOf(
              s,
              codes.filter((c) => product.services.includes(c)),
            ),
            ctxFor(s.product, s.from, s.to, s.discountBp),
          );
          expect(r.ok).toBe(true);
          if (!r.ok) return;
          const q = r.value;
          const sum = (xs: { amount: number }[]) => xs.reduce((a, l) => a + l.amount, 0);
          expect(q.freight).toBe(sum(q.freightLines));
          expect(q.services).toBe(sum(q.serviceLines));
          expect(q.total).toBe(q.freight + q.services);
          for (const l of [...q.freightLines, ...q.serviceLines])
            expect(Number.isInteger(l.amount)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  const anyNumber = fc.oneof(
    fc.double(),
    fc.integer(),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -1, 0, 1e308, -0, 0.0001),
  );
  const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

  test('no input makes the domestic engine throw', () => {
    fc.assert(
      fc.property(
        fc.record({
          weightGrams: maybe(anyNumber.map(kgToGrams)),
          volumeCm3: maybe(anyNumber.map(dm3ToCm3)),
          loadMeters: maybe(anyNumber),
          palletSpaces: maybe(anyNumber),
          unitCode: maybe(fc.oneof(fc.string(), fc.constantFrom('KL', 'PL', '51', '99', '50'))),
          numberOfUnits: maybe(anyNumber),
          parcels: maybe(
            fc.array(
              fc.record({
                weightGrams: maybe(anyNumber.map(kgToGrams)),
                lengthCm: maybe(anyNumber),
                heightCm: maybe(anyNumber),
                widthCm: maybe(anyNumber),
                volumeCm3: maybe(anyNumber.map(dm3ToCm3)),
              }),
              { maxLength: 5 },
            ),
          ),
          services: maybe(
            fc.array(fc.oneof(fc.string(), fc.constantFrom('16', '35', '42')), { maxLength: 4 }),
          ),
          deliveryType: maybe(fc.constantFrom<0 | 1>(0, 1)),
          senderZip: fc.string(),
          receiverZip: fc.string(),
        }),
        fc.constantFrom(...domesticProducts, 'EP'),
        fc.string(),
        fc.constantFrom(...terminals),
        fc.oneof(fc.integer(), anyNumber),
        (req, code, from, to, bp) => {
          const r = priceDomestic(req, ctxFor(code, from, to, bp));
          if (r.ok) expect(r.value.total).toBe(r.value.freight + r.value.services);
          else expect(Object.keys(r.errors).length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 1000 },
    );
  });

  test('no input makes the international engine throw', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('NO', 'SE', 'DE', 'XX', '', 'FR'),
        fc.constantFrom('NO', 'SE', 'DE', 'IS', 'US'),
        anyNumber,
        anyNumber,
        fc.boolean(),
        fc.array(fc.oneof(fc.string(), fc.constantFrom('12', '15', '11')), { maxLength: 3 }),
        fc.constantFrom<Terms>('EXW', 'CPT', 'DDU', 'DDP'),
        fc.constantFrom('EP', 'EG', '43'),
        fc.option(fc.integer({ min: 1, max: 1e12 }), { nil: null }),
        anyNumber,
        (origin, destination, weightGrams, volumeCm3, dangerousGoods, codes, terms, code, rate, bp) => {
          const r = priceInternational(
            {
              originCountry: origin,
              destinationCountry: destination,
              weightGrams,
              volumeCm3,
              dangerousGoods,
              services: codes,
              terms,
            },
            {
              tariff,
              product: productOf(code),
              services,
              discountBp: bp,
              currency: 'NOK',
              ratePerEurMicro: rate,
            },
          );
          if (r.ok === true) expect(r.value.total).toBe(r.value.freight.amount + r.value.otherCosts);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

import countries from 'i18n-iso-countries';
import { type Static, Type } from 'typebox';
import { Violations } from '../lib/errors';
import { parseAmount, parseKgAsGrams, parsePercentAsBasisPoints } from '../lib/units';
import { FIRST_DATE, isDate, LAST_DATE } from '../schedule/calendar';

/**
 * A version's first day: a real date within the calendar's range (a year 0000 passed the pattern
 * and the JavaScript check, and PostgreSQL, which has no year 0, answered it with a 500).
 */
export const VALID_FROM_RULE = `ValidFrom is not a calendar date from ${FIRST_DATE} to ${LAST_DATE}.`;

/**
 * The tariff document: the JSON format of `data/tariffs/<ValidFrom>.json` and of `PUT /admin/tariffs`,
 * documented in docs/tariffs.md. Amounts are decimal strings (`"129.00"`), so no price ever passes
 * through a binary float; percentages and factors are decimal strings for the same reason.
 */

const Money = Type.String({
  pattern: '^[0-9]{1,9}(\\.[0-9]{1,2})?$',
  'x-error': 'An amount is a decimal string with at most 2 decimals, such as "129.00".',
});
const Percent = Type.String({
  pattern: '^[0-9]{1,3}(\\.[0-9]{1,2})?$',
  'x-error': 'A percentage is a decimal string with at most 2 decimals, such as "7.50".',
});
const IsoDate = Type.String({
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
  'x-error': 'A date is written YYYY-MM-DD.',
});
const Zone = Type.Integer({ minimum: 1, maximum: 99 });

const Band = Type.Object(
  {
    UpToKg: Type.Integer({
      minimum: 1,
      maximum: 100_000,
      description: 'Upper bound of the band (inclusive), in kg.',
    }),
    Prices: Type.Array(Money, {
      minItems: 1,
      maxItems: 99,
      description: 'One price per zone, zone 1 first.',
    }),
  },
  { additionalProperties: false },
);

const PriceTable = {
  MinimumPrice: Money,
  Bands: Type.Array(Band, { minItems: 1, maxItems: 100 }),
  Per100KgAbove: Type.Array(Money, {
    minItems: 1,
    maxItems: 99,
    description:
      'Per zone: price of each started 100 kg above the last band, added to the last band’s price.',
  }),
};

const DomesticProduct = Type.Object(
  {
    VolumeFactorKgPerDm3: Type.String({
      pattern: '^[0-9]{1,2}(\\.[0-9]{1,3})?$',
      'x-error': 'A volume factor is a decimal string in kg/dm³ with at most 3 decimals, such as "0.333".',
    }),
    PrivateDelivery: Type.Union([Money, Type.Null()], {
      description: 'Addition for DeliveryType 0 (Private); null when the product already is a home delivery.',
    }),
    ...PriceTable,
  },
  { additionalProperties: false },
);

const PostalAddition = Type.Object(
  {
    Name: Type.String({ minLength: 1, maxLength: 100 }),
    FromZip: Type.String({ pattern: '^[0-9]{4}$' }),
    ToZip: Type.String({ pattern: '^[0-9]{4}$' }),
    Delivery: Money,
    Pickup: Money,
  },
  { additionalProperties: false },
);

const ServiceCode = '^[A-Za-z0-9]{1,4}$';

const International = Type.Object(
  {
    Currency: Type.Literal('EUR'),
    VolumeFactorKgPerM3: Type.Integer({ minimum: 1, maximum: 1000 }),
    ZoneCount: Zone,
    CountryZones: Type.Record(Type.String({ pattern: '^[A-Z]{2}$' }), Zone),
    EnergyPercent: Percent,
    Fees: Type.Object(
      {
        OriginPickup: Money,
        ExportClearance: Money,
        ImportClearance: Money,
        DutyHandling: Money,
        DangerousGoods: Money,
      },
      { additionalProperties: false },
    ),
    Products: Type.Record(
      Type.String({ pattern: ServiceCode }),
      Type.Object(
        {
          DestinationDeliveryPercent: Percent,
          ...PriceTable,
        },
        { additionalProperties: false },
      ),
    ),
    Services: Type.Record(Type.String({ pattern: ServiceCode }), Money),
  },
  { additionalProperties: false },
);

export const TariffDocumentSchema = Type.Object(
  {
    ValidFrom: IsoDate,
    Currency: Type.Literal('NOK'),
    Description: Type.Optional(Type.String({ maxLength: 500 })),
    ZoneCount: Zone,
    Zones: Type.Record(
      Type.String({ pattern: '^[A-Z0-9]{2,6}$' }),
      Type.Record(Type.String({ pattern: '^[A-Z0-9]{2,6}$' }), Zone),
      { description: 'From terminal → to terminal → zone.' },
    ),
    ChargeableWeight: Type.Object(
      {
        LoadMeterKg: Type.Integer({ minimum: 1, maximum: 10_000 }),
        PalletSpaceKg: Type.Integer({ minimum: 1, maximum: 10_000 }),
        UnitWeightsKg: Type.Record(
          Type.String({ pattern: '^(KL|PL|5[1-9]|[6-9][0-9])$' }),
          Type.Integer({ minimum: 0, maximum: 10_000 }),
        ),
      },
      { additionalProperties: false },
    ),
    EnergyPercent: Percent,
    TollRoadByZone: Type.Array(Money, { minItems: 1, maxItems: 99 }),
    PostalAdditions: Type.Array(PostalAddition, { maxItems: 10_000 }),
    Products: Type.Record(Type.String({ pattern: ServiceCode }), DomesticProduct),
    Services: Type.Record(Type.String({ pattern: ServiceCode }), Money),
    International: Type.Optional(International),
  },
  { additionalProperties: false },
);

export type TariffDocument = Static<typeof TariffDocumentSchema>;

/** A field path in the form validation errors use: `Zones.OSL.BGO`, `Products[43].Bands[2].Prices`. */
export const path = (...segments: (string | number)[]): string =>
  segments.reduce<string>((name, s) => {
    const text = String(s);
    if (/^\d+$/.test(text)) return `${name}[${text}]`;
    return name ? `${name}.${text}` : text;
  }, '');

const amount = (s: string) => parseAmount(s) ?? 0;

const nonDecreasing = (xs: number[]) => xs.every((x, i) => i === 0 || x >= (xs[i - 1] ?? 0));

/** Checks one price table: band order, one price per zone, and prices that never fall with weight or zone. */
function checkTable(
  v: Violations,
  at: string,
  table: { Bands: { UpToKg: number; Prices: string[] }[]; Per100KgAbove: string[] },
  zoneCount: number,
): void {
  table.Bands.forEach((band, b) => {
    v.check(
      `${at}.Bands[${b}].UpToKg`,
      b === 0 || band.UpToKg > (table.Bands[b - 1]?.UpToKg ?? 0),
      'Band limits must increase from band to band.',
    );
    if (
      !v.check(
        `${at}.Bands[${b}].Prices`,
        band.Prices.length === zoneCount,
        `Give one price per zone (${zoneCount}).`,
      )
    )
      return;
    v.check(
      `${at}.Bands[${b}].Prices`,
      nonDecreasing(band.Prices.map(amount)),
      'A price may not fall from one zone to the next (a longer distance is never cheaper).',
    );
    const previous = table.Bands[b - 1];
    if (b > 0 && previous && previous.Prices.length === zoneCount) {
      band.Prices.forEach((p, z) => {
        v.check(
          `${at}.Bands[${b}].Prices[${z}]`,
          amount(p) >= amount(previous.Prices[z] ?? '0'),
          'A price may not fall from one weight band to the next (more weight is never cheaper).',
        );
      });
    }
  });
  if (
    v.check(
      `${at}.Per100KgAbove`,
      table.Per100KgAbove.length === zoneCount,
      `Give one rate per zone (${zoneCount}).`,
    )
  ) {
    v.check(
      `${at}.Per100KgAbove`,
      nonDecreasing(table.Per100KgAbove.map(amount)),
      'A rate may not fall from one zone to the next.',
    );
  }
}

/**
 * The rules a structurally valid tariff must also meet. Throws `ValidationFailed` keyed by the
 * document's field paths (`Products[43].Bands[2].Prices`, `Zones.OSL.BGO`) listing every broken rule.
 */
export function assertTariffRules(doc: TariffDocument): void {
  checkTariffRules(doc, new Violations()).throwIfAny();
}

/** `assertTariffRules` collecting into `v` instead of throwing, so other checks can add theirs. */
export function checkTariffRules(doc: TariffDocument, v: Violations): Violations {
  v.check('ValidFrom', isDate(doc.ValidFrom), VALID_FROM_RULE);
  const terminals = Object.keys(doc.Zones);
  v.check('Zones', terminals.length > 0, 'The zone matrix names no terminal.');
  for (const from of terminals) {
    const row = doc.Zones[from] ?? {};
    for (const to of terminals) {
      const zone = row[to];
      if (
        v.check(path('Zones', from, to), zone !== undefined, `The zone from ${from} to ${to} is missing.`)
      ) {
        v.check(
          path('Zones', from, to),
          (zone ?? 0) <= doc.ZoneCount,
          `Zone ${zone} is above ZoneCount ${doc.ZoneCount}.`,
        );
      }
    }
    for (const to of Object.keys(row)) {
      v.check(
        path('Zones', from, to),
        to in doc.Zones,
        `Terminal ${to} has no row of its own in the matrix.`,
      );
    }
  }
  if (
    v.check(
      'TollRoadByZone',
      doc.TollRoadByZone.length === doc.ZoneCount,
      `Give one amount per zone (${doc.ZoneCount}).`,
    )
  ) {
    v.check(
      'TollRoadByZone',
      nonDecreasing(doc.TollRoadByZone.map(amount)),
      'The toll road addition may not fall from one zone to the next.',
    );
  }
  v.check(
    'ChargeableWeight.UnitWeightsKg',
    'KL' in doc.ChargeableWeight.UnitWeightsKg,
    'The unit weight of KL is missing.',
  );
  v.check(
    'ChargeableWeight.UnitWeightsKg',
    'PL' in doc.ChargeableWeight.UnitWeightsKg,
    'The unit weight of PL is missing.',
  );
  doc.PostalAdditions.forEach((a, i) => {
    v.check(`PostalAdditions[${i}].ToZip`, a.FromZip <= a.ToZip, 'ToZip is before FromZip.');
  });
  v.check('Products', Object.keys(doc.Products).length > 0, 'The tariff prices no product.');
  for (const [code, product] of Object.entries(doc.Products)) {
    checkTable(v, path('Products', code), product, doc.ZoneCount);
    v.check(
      path('Products', code, 'VolumeFactorKgPerDm3'),
      (parseKgAsGrams(product.VolumeFactorKgPerDm3) ?? 0) > 0,
      'The volume factor must be greater than 0.',
    );
  }
  const intl = doc.International;
  if (intl) {
    for (const [country, zone] of Object.entries(intl.CountryZones)) {
      v.check(
        path('International', 'CountryZones', country),
        countries.isValid(country),
        `${country} is not an ISO 3166-1 alpha-2 country code.`,
      );
      v.check(
        path('International', 'CountryZones', country),
        country !== 'NO',
        'Norway is the home country and has no international zone.',
      );
      v.check(
        path('International', 'CountryZones', country),
        zone <= intl.ZoneCount,
        `Zone ${zone} is above ZoneCount ${intl.ZoneCount}.`,
      );
    }
    for (const [code, product] of Object.entries(intl.Products)) {
      checkTable(v, path('International', 'Products', code), product, intl.ZoneCount);
      v.check(
        path('International', 'Products', code, 'DestinationDeliveryPercent'),
        (parsePercentAsBasisPoints(product.DestinationDeliveryPercent) ?? 0) < 10_000,
        'The destination delivery share must be below 100 %.',
      );
    }
  }
  return v;
}

/** The service priced internationally as the `Fees.DangerousGoods` fee, not from `Services`. */
export const DANGEROUS_GOODS_SERVICE = '12';

/**
 * What a tariff must be able to price: the terminals of the routing data in force (those the postal
 * codes are assigned to) and the catalogue in force.
 */
export interface PricedNetwork {
  terminals: ReadonlySet<string>;
  products: readonly {
    ProductCode: string;
    International: boolean;
    Services: readonly string[];
    VolumeFactorKgPerDm3: number;
  }[];
}

const productList = (codes: string[]) => `product${codes.length > 1 ? 's' : ''} ${codes.join(', ')}`;

/**
 * Something a tariff lacks to price a product of a catalogue: the tariff's path that would fill it,
 * the product and its field it concerns, and what is missing (a sentence without its full stop).
 */
export interface PriceGap {
  path: string;
  product: string;
  /** The product's place in the list given to `priceGaps`. */
  index: number;
  /** The product's field in the catalogue: `Services[2]` for its third service. */
  field: 'ProductCode' | 'VolumeFactorKgPerDm3' | `Services[${number}]`;
  service?: string;
  message: string;
}

/**
 * What `doc` lacks to price `products` as the engines will ask it to: a price table for every product
 * priced at home (not `International`: those are priced from `International` or answer
 * `NO_PRODUCT_PRICE`) with the volume factor the catalogue shows customers (GET /v1/products), a
 * price for every service such a product offers, and with `International` its volume factor and a
 * price for every service an international product offers (but `12`, which is a fee).
 */
export function priceGaps(doc: TariffDocument, products: PricedNetwork['products']): PriceGap[] {
  const gaps: PriceGap[] = [];
  const intl = doc.International;
  for (const [index, product] of products.entries()) {
    const code = product.ProductCode;
    const shownGrams = Math.round(product.VolumeFactorKgPerDm3 * 1000);
    if (product.International) {
      if (!intl) continue;
      if (intl.VolumeFactorKgPerM3 !== shownGrams) {
        gaps.push({
          path: path('International', 'VolumeFactorKgPerM3'),
          product: code,
          index,
          field: 'VolumeFactorKgPerDm3',
          message: `Product ${code} of the catalogue charges ${product.VolumeFactorKgPerDm3} kg per dm³, not ${intl.VolumeFactorKgPerM3} kg per m³`,
        });
      }
    } else {
      const table = doc.Products[code];
      if (!table) {
        gaps.push({
          path: path('Products', code),
          product: code,
          index,
          field: 'ProductCode',
          message: `Product ${code} of the catalogue has no price table`,
        });
      } else if (parseKgAsGrams(table.VolumeFactorKgPerDm3) !== shownGrams) {
        gaps.push({
          path: path('Products', code, 'VolumeFactorKgPerDm3'),
          product: code,
          index,
          field: 'VolumeFactorKgPerDm3',
          message: `The catalogue charges ${product.VolumeFactorKgPerDm3} kg per dm³ for product ${code}, not ${table.VolumeFactorKgPerDm3}`,
        });
      }
    }
    for (const [j, service] of product.Services.entries()) {
      if (product.International && service === DANGEROUS_GOODS_SERVICE) continue;
      if (Object.hasOwn(product.International ? (intl?.Services ?? {}) : doc.Services, service)) continue;
      gaps.push({
        path: product.International ? path('International', 'Services', service) : path('Services', service),
        product: code,
        index,
        field: `Services[${j}]`,
        service,
        message: `Service ${service} has no ${product.International ? 'international ' : ''}price`,
      });
    }
  }
  return gaps;
}

/**
 * Whether a tariff prices the live network and catalogue: a zone row for every routing terminal (the
 * full matrix is `checkTariffRules`'s; a row for a terminal the routing data lacks yet is allowed,
 * so a new terminal's prices can be put before it opens, while a misspelt code still leaves the real
 * one without its row) and none of `priceGaps`. A product or service the catalogue does not offer
 * yet may be priced: a change of the catalogue puts its tariff first (`checkCatalog` in
 * tariff-admin.ts). Adds to `v`, keyed by document paths; a missing service once, with the products
 * that offer it.
 */
export function checkTariffFits(doc: TariffDocument, network: PricedNetwork, v: Violations): Violations {
  for (const terminal of network.terminals) {
    v.check(
      path('Zones', terminal),
      Object.hasOwn(doc.Zones, terminal),
      `Terminal ${terminal} of the routing data has no row in the zone matrix.`,
    );
  }
  const offeredBy = new Map<string, { message: string; products: string[] }>();
  for (const gap of priceGaps(doc, network.products)) {
    if (gap.service === undefined) v.check(gap.path, false, `${gap.message}.`);
    else if (offeredBy.has(gap.path)) offeredBy.get(gap.path)?.products.push(gap.product);
    else offeredBy.set(gap.path, { message: gap.message, products: [gap.product] });
  }
  for (const [at, { message, products }] of offeredBy) {
    v.check(at, false, `${message}; the catalogue offers it with ${productList(products)}.`);
  }
  return v;
}

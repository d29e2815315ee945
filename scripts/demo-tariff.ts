// Writes Kolli's demo tariff, data/tariffs/2026-01-01.json (format: docs/tariffs.md).
//
//   node --import tsx scripts/demo-tariff.ts
//
// The zone matrix follows the great-circle distance between the terminals of data/terminals.csv
// (Longyearbyen is the farthest zone from everywhere). Price levels are hand-set demo figures of the
// order of Norwegian carriers' published 2025–2026 list prices; see docs/tariffs.md. The script is
// kept so the file can be rebuilt when the terminal network changes; the JSON file is the tariff.
import { readFileSync, writeFileSync } from 'node:fs';
import { distanceKm } from '../src/reference-data/terminals-routing';

const root = new URL('../', import.meta.url);
const terminals = readFileSync(new URL('data/terminals.csv', root), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const [code = '', , , lat = '0', lon = '0'] = line.split(',');
    return { code, lat: Number(lat), lon: Number(lon) };
  });

/** Zone upper limits in great-circle km: zone 2 up to 120 km, zone 3 up to 250 km, … */
const ZONE_LIMITS_KM = [120, 250, 400, 600, 900, 1300];
const ZONE_COUNT = 8;
const zoneOf = (a: (typeof terminals)[number], b: (typeof terminals)[number]) => {
  if (a.code === b.code) return 1;
  if (a.code === 'LYR' || b.code === 'LYR') return ZONE_COUNT;
  const km = distanceKm(a, b);
  const i = ZONE_LIMITS_KM.findIndex((limit) => km <= limit);
  return i === -1 ? ZONE_COUNT : i + 2;
};
const zones = Object.fromEntries(
  terminals.map((a) => [a.code, Object.fromEntries(terminals.map((b) => [b.code, zoneOf(a, b)]))]),
);

const money = (n: number) => `${Math.round(n)}.00`;

/** Bands × zones from a zone-1 price per band and a multiplier per zone, in whole NOK/EUR. */
function table(minimum: number, bands: [number, number][], per100: number, multipliers: number[]) {
  return {
    MinimumPrice: money(minimum),
    Bands: bands.map(([upTo, price]) => ({ UpToKg: upTo, Prices: multipliers.map((m) => money(price * m)) })),
    Per100KgAbove: multipliers.map((m) => money(per100 * m)),
  };
}
const scaled = (bands: [number, number][], factor: number): [number, number][] =>
  bands.map(([w, p]) => [w, p * factor]);

// Groupage and parcels, business to business (product 43 System): zone 1 price per band.
const B2B: [number, number][] = [
  [5, 165],
  [10, 189],
  [20, 229],
  [35, 279],
  [50, 335],
  [75, 405],
  [100, 470],
  [150, 590],
  [200, 700],
  [300, 905],
  [400, 1095],
  [500, 1275],
  [750, 1695],
  [1000, 2080],
  [1500, 2790],
  [2000, 3440],
  [2500, 4050],
  [3000, 4620],
];
const B2B_ZONES = [1.0, 1.12, 1.3, 1.55, 1.85, 2.2, 2.6, 3.2];

// Home delivery (HE evening; HJ daytime is 10 % cheaper).
const HOME: [number, number][] = [
  [5, 149],
  [10, 169],
  [20, 199],
  [35, 249],
  [50, 299],
  [70, 359],
  [100, 459],
  [150, 629],
  [200, 789],
  [300, 1099],
  [400, 1389],
  [500, 1669],
];
const HOME_ZONES = [1.0, 1.06, 1.14, 1.24, 1.36, 1.5, 1.66, 2.0];

// Parcels to a pickup point.
const PICKUP_POINT: [number, number][] = [
  [2, 79],
  [5, 95],
  [10, 115],
  [20, 145],
  [35, 185],
  [50, 245],
  [100, 430],
  [200, 790],
  [350, 1290],
];
const PICKUP_POINT_ZONES = [1.0, 1.04, 1.09, 1.15, 1.22, 1.3, 1.4, 1.7];

// International, in EUR.
const EURO_PARCEL: [number, number][] = [
  [1, 24],
  [5, 31],
  [10, 39],
  [20, 52],
  [35, 69],
  [50, 89],
  [100, 149],
  [200, 259],
  [300, 359],
  [500, 549],
  [750, 779],
  [1000, 999],
];
const EURO_GROUPAGE: [number, number][] = [
  [100, 189],
  [200, 319],
  [300, 439],
  [500, 649],
  [750, 889],
  [1000, 1109],
  [1500, 1549],
  [2000, 1949],
  [3000, 2699],
  [5000, 4049],
  [10000, 7299],
];

const tariff = {
  ValidFrom: '2026-01-01',
  Currency: 'NOK',
  Description:
    'Kolli demo tariff 2026 (NOK excl. VAT). Hand-set demo levels of the order of Norwegian carriers’ published 2025–2026 list prices; not any carrier’s tariff.',
  ZoneCount: ZONE_COUNT,
  Zones: zones,
  ChargeableWeight: {
    LoadMeterKg: 1850,
    PalletSpaceKg: 750,
    UnitWeightsKg: { KL: 0, PL: 150, '51': 250, '52': 60 },
  },
  EnergyPercent: '11.50',
  TollRoadByZone: [9, 14, 19, 26, 34, 42, 52, 68].map(money),
  PostalAdditions: [
    { Name: 'Kvitsøy', FromZip: '4180', ToZip: '4181', Delivery: '145.00', Pickup: '145.00' },
    { Name: 'Utsira', FromZip: '5547', ToZip: '5547', Delivery: '195.00', Pickup: '195.00' },
    { Name: 'Fedje', FromZip: '5947', ToZip: '5948', Delivery: '145.00', Pickup: '145.00' },
    { Name: 'Solund', FromZip: '6921', ToZip: '6929', Delivery: '145.00', Pickup: '145.00' },
    { Name: 'Værøy and Røst', FromZip: '8062', ToZip: '8065', Delivery: '245.00', Pickup: '245.00' },
    { Name: 'Islands off Bodø', FromZip: '8093', ToZip: '8098', Delivery: '195.00', Pickup: '195.00' },
    { Name: 'Træna', FromZip: '8770', ToZip: '8770', Delivery: '245.00', Pickup: '245.00' },
    {
      Name: 'Svalbard outside Longyearbyen',
      FromZip: '9173',
      ToZip: '9179',
      Delivery: '950.00',
      Pickup: '950.00',
    },
    { Name: 'Hasvik', FromZip: '9590', ToZip: '9595', Delivery: '195.00', Pickup: '195.00' },
  ],
  Products: {
    '43': {
      VolumeFactorKgPerDm3: '0.333',
      PrivateDelivery: '79.00',
      ...table(165, B2B, 150, B2B_ZONES),
    },
    '44': {
      VolumeFactorKgPerDm3: '0.333',
      PrivateDelivery: '79.00',
      ...table(205, scaled(B2B, 1.25), 188, B2B_ZONES),
    },
    DI: {
      VolumeFactorKgPerDm3: '0.333',
      PrivateDelivery: '79.00',
      ...table(590, scaled(B2B, 2.0), 300, B2B_ZONES),
    },
    HE: { VolumeFactorKgPerDm3: '0.250', PrivateDelivery: null, ...table(149, HOME, 260, HOME_ZONES) },
    HJ: {
      VolumeFactorKgPerDm3: '0.250',
      PrivateDelivery: null,
      ...table(135, scaled(HOME, 0.9), 234, HOME_ZONES),
    },
    PP: {
      VolumeFactorKgPerDm3: '0.250',
      PrivateDelivery: null,
      ...table(79, PICKUP_POINT, 360, PICKUP_POINT_ZONES),
    },
  },
  Services: {
    '11': '395.00',
    '12': '165.00',
    '15': '6.00',
    '16': '3.00',
    '17': '39.00',
    '18': '0.00',
    '35': '195.00',
    '41': '159.00',
    '42': '49.00',
  },
  International: {
    Currency: 'EUR',
    VolumeFactorKgPerM3: 333,
    ZoneCount: 5,
    CountryZones: {
      SE: 1,
      DK: 1,
      FI: 2,
      DE: 2,
      NL: 2,
      BE: 2,
      LU: 2,
      PL: 2,
      EE: 3,
      LV: 3,
      LT: 3,
      FR: 3,
      AT: 3,
      CH: 3,
      CZ: 3,
      SK: 3,
      GB: 3,
      IE: 4,
      IT: 4,
      ES: 4,
      PT: 4,
      HU: 4,
      SI: 4,
      HR: 4,
      RO: 5,
      BG: 5,
      GR: 5,
      CY: 5,
      MT: 5,
      IS: 5,
    },
    EnergyPercent: '14.00',
    Fees: {
      OriginPickup: '35.00',
      ExportClearance: '39.00',
      ImportClearance: '49.00',
      DutyHandling: '25.00',
      DangerousGoods: '75.00',
    },
    Products: {
      EP: {
        DestinationDeliveryPercent: '20.00',
        ...table(24, EURO_PARCEL, 95, [1.0, 1.2, 1.45, 1.75, 2.1]),
      },
      EG: {
        DestinationDeliveryPercent: '25.00',
        ...table(189, EURO_GROUPAGE, 70, [1.0, 1.25, 1.55, 1.9, 2.3]),
      },
    },
    Services: { '11': '45.00', '15': '2.00', '16': '1.00', '17': '5.00' },
  },
};

// Two-space JSON with short arrays and objects on one line each, so the file reads as tables.
const collapse = (inner: string) => inner.trim().replace(/,\n\s+/g, ', ');
const text = JSON.stringify(tariff, null, 2)
  .replace(/\[\n\s+([^[\]{}]*?)\n\s+\]/g, (_m, inner: string) => `[${collapse(inner)}]`)
  .replace(/\{\n((?:[^{}[\]]|\[[^[\]]*\])*?)\n\s+\}/g, (m, inner: string) =>
    collapse(inner).length <= 260 ? `{ ${collapse(inner)} }` : m,
  );
writeFileSync(new URL('data/tariffs/2026-01-01.json', root), `${text}\n`);
console.log('wrote data/tariffs/2026-01-01.json');

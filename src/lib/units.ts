/**
 * The one place where wire units meet internal units. Inside, weights are integer grams, volumes
 * integer cm³ and money integer minor units (øre, cent); the spec's wire gives kilograms, dm³ and
 * decimal kroner. Every conversion between the two goes through this module, so no other file
 * multiplies or divides a weight or an amount by 1000 or 100. (Dates: `lib/oslo-time.ts`.)
 *
 * Money arithmetic is exact: decimal strings from tariffs and rate tables are parsed digit by digit,
 * never through binary floats.
 */

const GRAMS_PER_KG = 1000;
const CM3_PER_DM3 = 1000;
const MINOR_PER_MAJOR = 100;

/** Kilograms from the wire (`12.5`) → integer grams (12500), rounded to the nearest gram. */
export const kgToGrams = (kg: number): number => Math.round(kg * GRAMS_PER_KG);

/** Integer grams → kilograms for the wire (12500 → 12.5); exact as the shortest decimal. */
export const gramsToKg = (grams: number): number => grams / GRAMS_PER_KG;

/** `gramsToKg` that keeps an unknown weight unknown. */
export const gramsToKgOrNull = (grams: number | null): number | null =>
  grams === null ? null : gramsToKg(grams);

/** Grams rounded up to whole kilograms (12001 g → 13000 g): tariffs charge per started kilogram. */
export const ceilToWholeKg = (grams: number): number => Math.ceil(grams / GRAMS_PER_KG) * GRAMS_PER_KG;

/** dm³ (litres) from the wire → integer cm³. */
export const dm3ToCm3 = (dm3: number): number => Math.round(dm3 * CM3_PER_DM3);

/** Integer cm³ → dm³ for the wire. */
export const cm3ToDm3 = (cm3: number): number => cm3 / CM3_PER_DM3;

/** Integer cm³ → m³ (the international calculator's wire unit). */
export const cm3ToM3 = (cm3: number): number => cm3 / (CM3_PER_DM3 * 1000);

/** `cm3ToDm3` that keeps an unknown volume unknown. */
export const cm3ToDm3OrNull = (cm3: number | null): number | null => (cm3 === null ? null : cm3ToDm3(cm3));

/** Whole kilograms (a product's limit) → grams, for comparing with measured weights. */
export const wholeKgToGrams = (kg: number): number => kg * GRAMS_PER_KG;

/** The weight a volume has at a density given in grams per dm³, rounded up to the gram. */
export const gramsOfVolume = (cm3: number, gramsPerDm3: number): number =>
  Math.ceil((cm3 * gramsPerDm3) / CM3_PER_DM3);

/** The weight a volume has at a density given in kilograms per m³, rounded up to the gram. */
export const gramsOfVolumeAtKgPerM3 = (cm3: number, kgPerM3: number): number =>
  Math.ceil((Math.round(cm3) * kgPerM3) / CM3_PER_DM3);

/** `kgToGrams` that keeps an absent weight absent (an optional wire field). */
export const kgToGramsOrUndefined = (kg: number | undefined): number | undefined =>
  kg === undefined ? undefined : kgToGrams(kg);

/** `dm3ToCm3` that keeps an absent volume absent (an optional wire field). */
export const dm3ToCm3OrUndefined = (dm3: number | undefined): number | undefined =>
  dm3 === undefined ? undefined : dm3ToCm3(dm3);

const GRAMS_PER_100_KG = 100 * GRAMS_PER_KG;

/** How many 100 kg a weight starts (1 g → 1, 100 000 g → 1, 100 001 g → 2): tariffs charge per started 100 kg. */
export const started100Kg = (grams: number): number => Math.ceil(grams / GRAMS_PER_100_KG);

const MG_PER_G = 1000;

/**
 * The weight of a length of load meters at a weight in grams per meter, rounded up to the gram. The
 * product is first rounded to the milligram, so a binary float's error above an exact gram does not
 * add one; the length itself is not rounded (a millimetre step moved 0.5405 m, 999.925 kg, into
 * the band above 1 000 kg).
 */
export const gramsOfLoadMeters = (meters: number, gramsPerMeter: number): number =>
  Math.ceil(Math.round(meters * gramsPerMeter * MG_PER_G) / MG_PER_G);

/** A decimal kilogram string with at most 3 decimals (`"12.5"`) → integer grams (12500); else null. */
export const parseKgAsGrams = (text: string): number | null => parseScaled(text, 3);

/** A decimal m³ string with at most 6 decimals (`"0.25"`) → integer cm³ (250000); else null. */
export const parseM3AsCm3 = (text: string): number | null => parseScaled(text, 6);

const BASIS_POINTS_PER_PERCENT = 100;

/** A percentage from the wire or stored data (`12.5`) → whole basis points (1250), rounded. */
export const percentToBasisPoints = (percent: number): number =>
  Math.round(percent * BASIS_POINTS_PER_PERCENT);

/** A decimal percentage string with at most 2 decimals (`"7.50"`) → basis points (750); else null. */
export const parsePercentAsBasisPoints = (text: string): number | null => parseScaled(text, 2);

/** Basis points → a percentage for text (1250 → 12.5). */
export const basisPointsToPercent = (bp: number): number => bp / BASIS_POINTS_PER_PERCENT;

const AMOUNT = /^(\d{1,9})(?:\.(\d{1,2}))?$/;

/** `"129.5"` → 12950. Returns null for anything that is not a non-negative amount with ≤ 2 decimals. */
export function parseAmount(text: string): number | null {
  const m = AMOUNT.exec(text);
  if (!m) return null;
  const [, whole = '0', fraction = ''] = m;
  return Number(whole) * MINOR_PER_MAJOR + Number(fraction.padEnd(2, '0'));
}

/** 12950 → `"129.50"`; negative amounts keep their sign (`"-12.40"`). */
export function formatAmount(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.trunc(abs / MINOR_PER_MAJOR)}.${String(abs % MINOR_PER_MAJOR).padStart(2, '0')}`;
}

/** Minor units as a JSON decimal (12950 → 129.5); exact because the result is the shortest decimal. */
export const toDecimal = (minor: number): number => minor / MINOR_PER_MAJOR;

const DECIMAL = /^(\d{1,6})(?:\.(\d{1,6}))?$/;

/**
 * A non-negative decimal string as an integer scaled by 10^scale (`"7.5"`, 2 → 750).
 * Null when malformed or when it has more decimals than `scale`.
 */
export function parseScaled(text: string, scale: number): number | null {
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const [, whole = '0', fraction = ''] = m;
  if (fraction.length > scale) return null;
  return Number(whole) * 10 ** scale + Number(fraction.padEnd(scale, '0'));
}

/**
 * round_half_up(amount × numerator / denominator) for non-negative integers, in BigInt so large
 * products stay exact. A negative amount is rounded on its magnitude (half away from zero).
 */
export function mulDivHalfUp(amount: number, numerator: number, denominator: number): number {
  if (amount < 0) return -mulDivHalfUp(-amount, numerator, denominator);
  const n = BigInt(amount) * BigInt(numerator);
  const d = BigInt(denominator);
  return Number((n * 2n + d) / (2n * d));
}

/** `percent` given in hundredths of a percent (basis points): 750 = 7.50 %. */
export const percentOf = (amount: number, basisPoints: number): number =>
  mulDivHalfUp(amount, basisPoints, 10_000);

/**
 * Loading metres of a floor area in cm² on a 240 cm wide trailer, to the centimetre
 * (a 120×80 cm pallet, 9600 cm², takes 0.4 m).
 */
export const loadingMetres = (floorCm2: number): number => Math.round(floorCm2 / 240) / 100;

/** Thousandths (grams, cm³) as a two-decimal string of the whole unit (kg, dm³), rounded half up exactly. */
export const thousandthsAsText = (n: number): string => formatAmount(mulDivHalfUp(n, 1, 10));

/**
 * Kilograms rounded half up to at most 2 decimals (10 g), as labels print them, and as the invoice
 * report rounds the same grams: from whole grams, since `kg * 100` in binary put 1.255 kg at
 * 125.4999… and printed 1,25.
 */
export const kgTo2Decimals = (kg: number): number => Math.round(kgToGrams(kg) / 10) / 100;

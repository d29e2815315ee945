/**
 * Exact money arithmetic. Amounts are integers in the currency's minor unit (øre, cent); decimal
 * strings from tariffs and rate tables are parsed digit by digit, never through binary floats.
 */

const AMOUNT = /^(\d{1,9})(?:\.(\d{1,2}))?$/;

/** `"129.5"` → 12950. Returns null for anything that is not a non-negative amount with ≤ 2 decimals. */
export function parseAmount(text: string): number | null {
  const m = AMOUNT.exec(text);
  if (!m) return null;
  const [, whole = '0', fraction = ''] = m;
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

/** 12950 → `"129.50"`; negative amounts keep their sign (`"-12.40"`). */
export function formatAmount(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Minor units as a JSON decimal (12950 → 129.5); exact because the result is the shortest decimal. */
export const toDecimal = (minor: number): number => minor / 100;

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

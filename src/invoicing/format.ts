import type { Violations } from '../lib/errors';
import { formatAmount, thousandthsAsText, toDecimal } from '../lib/units';
import { dateOfDateTime } from '../schedule/calendar';
import { COST_CODES } from './cost-codes';
import type { InvoicedCostLine } from './tables';

/** How invoices and their reports write amounts, dates and references. */

/** Øre in the Norwegian form of printed documents: `1 234,50`, `-12,40`. */
export function nokText(ore: number): string {
  const [whole = '0', fraction = '00'] = formatAmount(Math.abs(ore)).split('.');
  return `${ore < 0 ? '-' : ''}${groupThousands(whole)},${fraction}`;
}
/** A decimal number with a comma and grouped thousands: `1 234,5`. */
export function decimalText(value: number, decimals: number): string {
  const [whole = '0', fraction] = Math.abs(value).toFixed(decimals).split('.');
  const sign = value < 0 && Number(value.toFixed(decimals)) !== 0 ? '-' : '';
  return `${sign}${groupThousands(whole)}${fraction ? `,${fraction}` : ''}`;
}
const groupThousands = (digits: string) => digits.replace(/\B(?=(\d{3})+$)/g, ' ');
/** `2026-11-25` → `25.11.2026`. */
export const norwegianDate = (date: string) => date.replace(/^(\d{4})-(\d{2})-(\d{2})$/, '$3.$2.$1');

/** Øre as a JSON decimal of kroner. */
export const kr = toDecimal;
/** Thousandths (grams, cm³) as a two-decimal string of the whole unit (kg, dm³). */
export const thousandthsText = thousandthsAsText;
export const krText = formatAmount;
export const midnight = (date: string | null) => (date ? `${date}T00:00:00` : null);
/** The sender reference as it is visible on invoices (the spec's 15 characters). */
export const invoiceReference = (ref: string | null) => (ref ? ref.slice(0, 15) : null);
export const sum = <T extends Pick<InvoicedCostLine, 'AmountOre'>>(
  lines: readonly T[],
  pick: (l: T) => boolean = () => true,
) => lines.reduce((total, l) => (pick(l) ? total + l.AmountOre : total), 0);
export const isService = (code: string) => !(code in COST_CODES);

/** A required date parameter (`2026-11-23` or `2026-11-23T…`), or null with a violation. */
export function dateField(field: string, value: string | undefined, v: Violations): string | null {
  if (value === undefined || value === '') {
    v.add(field, `The ${field} field is required.`);
    return null;
  }
  const date = dateOfDateTime(value);
  return v.check(field, date !== null, `The ${field} field is not a valid date.`) ? date : null;
}

import { percentOf, percentToBasisPoints } from '../lib/units';
import type { InvoicedCostLine } from './tables';

/**
 * The VAT rule of invoices, the one place VAT is computed (docs/invoicing.md, "VAT").
 *
 * - Freight of goods within Norway: the general rate (alminnelig sats), 25 %.
 * - Transport of goods directly to or from a place outside Norway, and the services that go with it
 *   (clearance, duty handling): exempt, merverdiavgiftsloven § 6-28 (transporttjenester), first and
 *   third paragraph. The rate is 0 % and the invoice says why.
 *
 * VAT is computed per cost line, on the line's amount excluding VAT, rounded half-up to the øre
 * (half away from zero, so a credit note's VAT is exactly the negated VAT of what it credits), and
 * frozen on the line when the invoice is issued. Every sum (per shipment, per rate, per invoice) adds
 * the frozen line amounts, so the reports, the invoice details and the PDF agree to the øre.
 */
export const DOMESTIC_VAT_PERCENT = 25;
export const EXEMPT_VAT_PERCENT = 0;

/** Why an international shipment carries no VAT, as the invoice states it. */
export const EXPORT_EXEMPTION_NO =
  'Fritatt for merverdiavgift, merverdiavgiftsloven § 6-28 (transport av varer direkte til eller fra utlandet)';
export const EXPORT_EXEMPTION_EN = 'Exempt from VAT: transport of goods to or from abroad';

/** The VAT rate of a shipment from its pickup and delivery countries (ISO alpha-2; null is Norway). */
export function vatPercentOf(fromCountry: string | null | undefined, toCountry: string | null | undefined) {
  const domestic = (fromCountry ?? 'NO') === 'NO' && (toCountry ?? 'NO') === 'NO';
  return domestic ? DOMESTIC_VAT_PERCENT : EXEMPT_VAT_PERCENT;
}

/** The cost lines with their VAT rate and amount, as they are frozen on an invoice. */
export function withVat(
  lines: readonly Omit<InvoicedCostLine, 'VatPercent' | 'VatOre'>[],
  percent: number,
): InvoicedCostLine[] {
  const bp = percentToBasisPoints(percent);
  // `|| 0`: a negative line at 0 % would otherwise carry −0.
  return lines.map((l) => ({ ...l, VatPercent: percent, VatOre: percentOf(l.AmountOre, bp) || 0 }));
}

/** VAT of frozen lines. */
export const vatSum = (lines: readonly InvoicedCostLine[]) => lines.reduce((t, l) => t + l.VatOre, 0);

export interface VatGroup {
  percent: number;
  /** The amount excluding VAT the rate applies to, øre. */
  basisOre: number;
  vatOre: number;
}

/** The invoice's VAT per rate, highest rate first: the sums of its frozen lines. */
export function vatByRate(lines: readonly InvoicedCostLine[]): VatGroup[] {
  const groups = new Map<number, VatGroup>();
  for (const l of lines) {
    const g = groups.get(l.VatPercent) ?? { percent: l.VatPercent, basisOre: 0, vatOre: 0 };
    g.basisOre += l.AmountOre;
    g.vatOre += l.VatOre;
    groups.set(l.VatPercent, g);
  }
  return [...groups.values()].sort((a, b) => b.percent - a.percent);
}

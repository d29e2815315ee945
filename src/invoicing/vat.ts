import { mulDivHalfUp } from '../lib/units';
import type { InvoicedCostLine } from './tables';

/**
 * The VAT rule of invoices, the one place VAT is computed (docs/invoicing.md, "VAT").
 *
 * - Freight of goods within Norway: the general rate (alminnelig sats), 25 %.
 * - Transport of goods directly to or from a place outside the Norwegian VAT area, and the services
 *   that go with it (clearance, duty handling): exempt, merverdiavgiftsloven § 6-28
 *   (transporttjenester), first and third paragraph. The rate is 0 % and the invoice says why.
 *   Outside the VAT area are other countries, and Svalbard and Jan Mayen (the act does not apply
 *   there, § 1-2), though their postal codes are Norwegian.
 *
 * The VAT of each rate is computed once per invoice (or credit note) on the rate's basis, rounded
 * half-up to the øre (half away from zero for credit notes), and then shared out over the cost lines
 * of that rate: each line gets its exact share rounded down, and the øre left over go to the lines
 * with the largest remainders (ties: the earlier line). The line figures are frozen with the invoice;
 * every other figure (per shipment, per rate, per invoice) adds them up, so the reports, the invoice
 * details and the PDF agree to the øre, and the PDF's VAT is exactly the rate times its basis.
 */
export const DOMESTIC_VAT_PERCENT = 25;
export const EXEMPT_VAT_PERCENT = 0;

/** Why a shipment to or from outside the VAT area carries no VAT, as the invoice states it. */
export const EXPORT_EXEMPTION_NO =
  'Fritatt for merverdiavgift, merverdiavgiftsloven § 6-28 (transport av varer direkte til eller fra et sted utenfor merverdiavgiftsområdet)';
export const EXPORT_EXEMPTION_EN =
  'Exempt from VAT: transport of goods to or from a place outside the Norwegian VAT area';

/** Counties of the postal register outside the VAT area: Svalbard (21) and Jan Mayen (22). */
const OUTSIDE_VAT_AREA_COUNTIES: ReadonlySet<string> = new Set(['21', '22']);

/** Where a shipment is picked up or delivered: its country (ISO alpha-2; null is Norway) and, in Norway, its county. */
export interface VatPlace {
  country: string | null | undefined;
  countyCode?: string | null;
}

const inVatArea = (p: VatPlace) =>
  (p.country ?? 'NO') === 'NO' && !OUTSIDE_VAT_AREA_COUNTIES.has(p.countyCode ?? '');

/** The VAT rate of a shipment from where it is picked up and delivered. */
export function vatPercentOf(from: VatPlace, to: VatPlace) {
  return inVatArea(from) && inVatArea(to) ? DOMESTIC_VAT_PERCENT : EXEMPT_VAT_PERCENT;
}

/** A cost line with its VAT rate, before the invoice's VAT is shared out over its lines. */
export type UntaxedLine = Omit<InvoicedCostLine, 'VatOre'>;

/** The cost lines of the shipments of one invoice at one rate (`percent`). */
export const atRate = (lines: readonly Omit<UntaxedLine, 'VatPercent'>[], percent: number): UntaxedLine[] =>
  lines.map((l) => ({ ...l, VatPercent: percent }));

/**
 * The VAT of one invoice, per shipment and cost line: per rate, the rate's basis times the rate
 * rounded half-up, shared out over the rate's lines by largest remainder (see above).
 */
export function allocateVat(shipments: readonly (readonly UntaxedLine[])[]): InvoicedCostLine[][] {
  const result = shipments.map((lines) => lines.map((l) => ({ ...l, VatOre: 0 })));
  const flat = result.flat();
  const byRate = new Map<number, InvoicedCostLine[]>();
  for (const l of flat) {
    const same = byRate.get(l.VatPercent);
    if (same) same.push(l);
    else byRate.set(l.VatPercent, [l]);
  }
  for (const [percent, lines] of byRate) {
    // Exact VAT in hundredths of an øre: integers, no binary fractions.
    const shares = lines.map((line, index) => {
      const exact = line.AmountOre * percent;
      const floor = Math.floor(exact / 100);
      return { line, index, floor, remainder: exact - 100 * floor };
    });
    const total = mulDivHalfUp(
      lines.reduce((t, l) => t + l.AmountOre * percent, 0),
      1,
      100,
    );
    let left = total - shares.reduce((t, sh) => t + sh.floor, 0);
    shares.sort((a, b) => b.remainder - a.remainder || a.index - b.index);
    for (const share of shares) {
      const extra = left > 0 ? 1 : 0;
      left -= extra;
      // `|| 0`: never −0.
      share.line.VatOre = share.floor + extra || 0;
    }
  }
  return result;
}

/** VAT of frozen lines. */
export const vatSum = (lines: readonly InvoicedCostLine[]) => lines.reduce((t, l) => t + l.VatOre, 0);

export interface VatGroup {
  percent: number;
  /** The amount excluding VAT the rate applies to, øre. */
  basisOre: number;
  vatOre: number;
}

/** VAT per rate summed as lines come (an invoice read a page at a time), highest rate first. */
export function vatTally() {
  const groups = new Map<number, VatGroup>();
  return {
    add(lines: readonly InvoicedCostLine[]): void {
      for (const l of lines) {
        const g = groups.get(l.VatPercent) ?? { percent: l.VatPercent, basisOre: 0, vatOre: 0 };
        g.basisOre += l.AmountOre;
        g.vatOre += l.VatOre;
        groups.set(l.VatPercent, g);
      }
    },
    groups: (): VatGroup[] => [...groups.values()].sort((a, b) => b.percent - a.percent),
  };
}

/** The invoice's VAT per rate, highest rate first: the sums of its frozen lines. */
export function vatByRate(lines: readonly InvoicedCostLine[]): VatGroup[] {
  const tally = vatTally();
  tally.add(lines);
  return tally.groups();
}

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
 * The VAT of each rate is computed once per invoice on the rate's basis, rounded half-up to the øre
 * (a negative amount half away from zero), and then shared out over the cost lines
 * of that rate: each line gets its exact share rounded down, and the øre left over go to the lines
 * with the largest remainders (ties: the earlier line). The line figures are frozen with the invoice;
 * every other figure (per shipment, per rate, per invoice) adds them up, so the reports, the invoice
 * details and the PDF agree to the øre, and the PDF's VAT is exactly the rate times its basis. A
 * credit note computes none: it negates the lines it credits with the VAT they were invoiced with.
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
  const sharing = vatSharing();
  for (const lines of shipments) sharing.count(lines);
  const share = sharing.shares();
  return shipments.map(share);
}

/** A line's exact VAT in hundredths of an øre, split into whole øre (rounded down) and the rest. */
function exactVat(line: UntaxedLine) {
  const exact = line.AmountOre * line.VatPercent;
  const floor = Math.floor(exact / 100);
  return { exact, floor, remainder: exact - 100 * floor };
}

/**
 * `allocateVat` in two passes, for an invoice too big to hold at once (a payer's shipments are read
 * a few thousand at a time): `count` the lines of every shipment, then `shares()` gives a function
 * that shares out the VAT of the same shipments passed again in the same order. The figures are
 * `allocateVat`'s to the øre: of each rate, the øre left over after rounding every line down go to
 * the largest remainders, earlier lines first; counting the lines of each remainder tells, before
 * the second pass, down to which remainder every line gets one and how many of the last get one.
 */
export function vatSharing() {
  const rates = new Map<number, { exact: number; floors: number; remainders: Map<number, number> }>();
  // The øre left over are handed out as lines come: lines shared beyond those counted would get too many.
  let counted = 0;
  let shared = 0;
  return {
    count(lines: readonly UntaxedLine[]): void {
      counted += lines.length;
      for (const line of lines) {
        const { exact, floor, remainder } = exactVat(line);
        let rate = rates.get(line.VatPercent);
        if (!rate) {
          rate = { exact: 0, floors: 0, remainders: new Map() };
          rates.set(line.VatPercent, rate);
        }
        rate.exact += exact;
        rate.floors += floor;
        rate.remainders.set(remainder, (rate.remainders.get(remainder) ?? 0) + 1);
      }
    },
    shares(): (lines: readonly UntaxedLine[]) => InvoicedCostLine[] {
      // Per rate: lines with a remainder above `cut` get one øre more; of those at `cut`, the first `quota`.
      const cuts = new Map<number, { cut: number; quota: number }>();
      for (const [percent, rate] of rates) {
        let left = mulDivHalfUp(rate.exact, 1, 100) - rate.floors;
        let cut = Number.NEGATIVE_INFINITY;
        let quota = 0;
        for (const remainder of [...rate.remainders.keys()].sort((a, b) => b - a)) {
          const lines = rate.remainders.get(remainder) ?? 0;
          if (left < lines) {
            cut = remainder;
            quota = Math.max(left, 0);
            break;
          }
          left -= lines;
        }
        cuts.set(percent, { cut, quota });
      }
      return (lines) => {
        shared += lines.length;
        if (shared > counted)
          throw new Error(`VAT shared out over more lines (${shared}) than counted (${counted})`);
        return lines.map((line) => {
          const { floor, remainder } = exactVat(line);
          const rate = cuts.get(line.VatPercent);
          let extra = 0;
          if (rate && remainder > rate.cut) extra = 1;
          else if (rate && remainder === rate.cut && rate.quota > 0) {
            rate.quota -= 1;
            extra = 1;
          }
          return { ...line, VatOre: floor + extra || 0 };
        });
      };
    },
  };
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

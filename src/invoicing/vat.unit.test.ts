import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { allocateVat, atRate, type UntaxedLine, vatByRate, vatPercentOf, vatSharing, vatSum } from './vat';

const line = (AmountOre: number, CostTypeCode = 'FREIGHT') => ({
  CostTypeCode,
  Description: CostTypeCode,
  AmountOre,
});

describe('the VAT rule', () => {
  test('freight within the VAT area is 25 %; to or from outside it (abroad, Svalbard, Jan Mayen) is exempt (0 %)', () => {
    const at = (country: string | null | undefined, countyCode?: string) => ({ country, countyCode });
    expect(vatPercentOf(at('NO', '03'), at('NO', '46'))).toBe(25);
    expect(vatPercentOf(at(null), at(undefined))).toBe(25);
    expect(vatPercentOf(at('NO'), at('SE'))).toBe(0);
    expect(vatPercentOf(at('DE'), at('NO'))).toBe(0);
    // Svalbard (21) and Jan Mayen (22) are outside the VAT area, to, from and within.
    expect(vatPercentOf(at('NO', '03'), at('NO', '21'))).toBe(0);
    expect(vatPercentOf(at('NO', '22'), at('NO', '03'))).toBe(0);
    expect(vatPercentOf(at('NO', '21'), at('NO', '21'))).toBe(0);
  });

  test('per rate on the invoice: the basis times the rate, rounded half-up, shared out by largest remainder', () => {
    // 12 shipments of 611,00 + 70,27 + 26,00: basis 8 487,24, VAT 2 121,81 exactly — where rounding
    // each line would give 12 × 17,57 for the energy lines, 3 øre more.
    const shipments = Array.from({ length: 12 }, () =>
      atRate([line(61_100), line(7_027, 'ENERGY'), line(2_600)], 25),
    );
    const taxed = allocateVat(shipments);
    const all = taxed.flat();
    expect(vatByRate(all)).toEqual([{ percent: 25, basisOre: 848_724, vatOre: 212_181 }]);
    // Each line is its exact share rounded down or up: 17,5675 → 17,56 or 17,57.
    const energy = all.filter((l) => l.CostTypeCode === 'ENERGY').map((l) => l.VatOre);
    expect(new Set(energy)).toEqual(new Set([1_756, 1_757]));
    // The øre left over go to the earlier lines (equal remainders).
    expect(energy).toEqual([...Array(9).fill(1_757), ...Array(3).fill(1_756)]);
    expect(taxed.map(vatSum).reduce((t, v) => t + v, 0)).toBe(212_181);
  });

  test('half an øre rounds away from zero, so a whole credit note reverses exactly; discounts are negative', () => {
    const invoice = allocateVat([atRate([line(10_002), line(-1_000, 'DISCOUNT')], 25)]);
    // (10 002 − 1 000) × 25 % = 2 250,5 øre → 2 251
    expect(vatSum(invoice.flat())).toBe(2_251);
    expect(invoice.flat().map((l) => l.VatOre)).toEqual([2_501, -250]);
    const credit = allocateVat([atRate([line(-10_002), line(1_000, 'DISCOUNT')], 25)]);
    expect(vatSum(credit.flat())).toBe(-2_251);
  });

  test('exempt lines carry 0 (never −0), and rates are shared out separately', () => {
    const taxed = allocateVat([
      atRate([line(50_000), line(-5_000, 'DISCOUNT')], 0),
      atRate([line(1_001)], 25),
    ]);
    expect(taxed.map((lines) => lines.map((l) => l.VatOre))).toEqual([[0, 0], [250]]);
    expect(Object.is(taxed[0]?.[1]?.VatOre, -0)).toBe(false);
    expect(vatByRate(taxed.flat())).toEqual([
      { percent: 25, basisOre: 1_001, vatOre: 250 },
      { percent: 0, basisOre: 45_000, vatOre: 0 },
    ]);
  });
});

describe('the VAT shared out in two passes (an invoice read a few thousand shipments at a time)', () => {
  /** The sharing as one sort of every line of a rate: the definition the two passes must meet. */
  function sortedShares(shipments: readonly (readonly UntaxedLine[])[]): number[][] {
    const taxed = shipments.map((lines) => lines.map((l) => ({ ...l, VatOre: 0 })));
    const percents = new Set(taxed.flat().map((l) => l.VatPercent));
    for (const percent of percents) {
      const lines = taxed.flat().filter((l) => l.VatPercent === percent);
      const shares = lines.map((line, index) => {
        const exact = line.AmountOre * percent;
        const floor = Math.floor(exact / 100);
        return { line, index, floor, remainder: exact - 100 * floor };
      });
      const exact = lines.reduce((t, l) => t + l.AmountOre * percent, 0);
      // Half away from zero, as mulDivHalfUp.
      const vat = Math.sign(exact) * Math.floor((Math.abs(exact) + 50) / 100);
      let left = vat - shares.reduce((t, s) => t + s.floor, 0);
      shares.sort((a, b) => b.remainder - a.remainder || a.index - b.index);
      for (const s of shares) {
        s.line.VatOre = s.floor + (left > 0 ? 1 : 0) || 0;
        if (left > 0) left -= 1;
      }
    }
    return taxed.map((lines) => lines.map((l) => l.VatOre));
  }

  const invoice = fc.array(
    fc.array(
      fc.record({
        CostTypeCode: fc.constantFrom('FREIGHT', 'ENERGY', 'DISCOUNT'),
        Description: fc.constant('x'),
        AmountOre: fc.integer({ min: -500_000, max: 5_000_000 }),
        VatPercent: fc.constantFrom(0, 25),
      }),
      { maxLength: 5 },
    ),
    { maxLength: 60 },
  );

  test('give each line what one sort of all its rate’s lines gives it, however the shipments are split', () => {
    fc.assert(
      fc.property(invoice, fc.integer({ min: 1, max: 20 }), (shipments, size) => {
        const sharing = vatSharing();
        for (let i = 0; i < shipments.length; i += size) {
          for (const lines of shipments.slice(i, i + size)) sharing.count(lines);
        }
        const share = sharing.shares();
        const passes: number[][] = [];
        for (let i = 0; i < shipments.length; i += size) {
          passes.push(...shipments.slice(i, i + size).map((lines) => share(lines).map((l) => l.VatOre)));
        }
        expect(passes).toEqual(sortedShares(shipments));
        expect(allocateVat(shipments).map((lines) => lines.map((l) => l.VatOre))).toEqual(passes);
      }),
      { numRuns: 500 },
    );
  });

  test('share no more lines than were counted: the øre left over would be handed out twice', () => {
    const lines = atRate([line(7_027, 'ENERGY')], 25);
    const sharing = vatSharing();
    sharing.count(lines);
    const share = sharing.shares();
    expect(share(lines).map((l) => l.VatOre)).toEqual([1_757]);
    expect(() => share(lines)).toThrow('more lines');
  });
});

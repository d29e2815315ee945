import { describe, expect, test } from 'vitest';
import { vatByRate, vatPercentOf, vatSum, withVat } from './vat';

const line = (AmountOre: number, CostTypeCode = 'FREIGHT') => ({
  CostTypeCode,
  Description: CostTypeCode,
  AmountOre,
});

describe('the VAT rule', () => {
  test('domestic freight is 25 %; to or from abroad is exempt (0 %)', () => {
    expect(vatPercentOf('NO', 'NO')).toBe(25);
    expect(vatPercentOf(null, undefined)).toBe(25);
    expect(vatPercentOf('NO', 'SE')).toBe(0);
    expect(vatPercentOf('DE', 'NO')).toBe(0);
  });

  test('per line, rounded half-up to the øre, half away from zero for negative lines', () => {
    const lines = withVat([line(10_002), line(-1_002, 'DISCOUNT'), line(1)], 25);
    // 2500.5 → 2501, −250.5 → −251, 0.25 → 0
    expect(lines.map((l) => l.VatOre)).toEqual([2_501, -251, 0]);
    expect(lines.every((l) => l.VatPercent === 25)).toBe(true);
    expect(vatSum(lines)).toBe(2_250);
    // A credit note negates each line, and so its VAT exactly.
    const credited = withVat([line(-10_002), line(1_002, 'DISCOUNT'), line(-1)], 25);
    expect(vatSum(credited)).toBe(-2_250);
  });

  test('exempt lines carry 0 (never −0)', () => {
    const lines = withVat([line(50_000), line(-5_000, 'DISCOUNT')], 0);
    expect(lines.map((l) => l.VatOre)).toEqual([0, 0]);
    expect(Object.is(lines[1]?.VatOre, -0)).toBe(false);
  });

  test('per rate: basis and VAT summed from the frozen lines, highest rate first', () => {
    const all = [...withVat([line(30_001)], 0), ...withVat([line(10_002), line(-1_002)], 25)];
    expect(vatByRate(all)).toEqual([
      { percent: 25, basisOre: 9_000, vatOre: 2_250 },
      { percent: 0, basisOre: 30_001, vatOre: 0 },
    ]);
  });
});

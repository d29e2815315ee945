import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { gs1CheckDigit, gsin, isGsin, isSscc, sscc } from './gs1';

describe('GS1 check digit', () => {
  test('matches published examples', () => {
    // The SSCC of the GS1 General Specifications' example: (00) 1 0614141 234567890 8.
    expect(gs1CheckDigit('10614141234567890')).toBe(8);
    expect(isSscc('106141412345678908')).toBe(true);
    // Widely cited EAN-13 codes: 4006381333931 and 5901234123457.
    expect(gs1CheckDigit('400638133393')).toBe(1);
    expect(gs1CheckDigit('590123412345')).toBe(7);
  });

  test('generated GSINs and SSCCs validate, and any single changed digit is caught', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 999_999_999n }),
        fc.nat(16),
        fc.integer({ min: 1, max: 9 }),
        (serial, pos, delta) => {
          const g = gsin('7090001', serial);
          expect(g).toHaveLength(17);
          expect(isGsin(g)).toBe(true);
          const digits = [...g];
          digits[pos] = String((Number(digits[pos]) + delta) % 10);
          expect(isGsin(digits.join(''))).toBe(false);
          const s = sscc('7090001', serial);
          expect(s).toHaveLength(18);
          expect(isSscc(s)).toBe(true);
        },
      ),
    );
  });

  test('malformed ids are rejected', () => {
    expect(isGsin('1234')).toBe(false);
    expect(isGsin('7090001000000001X')).toBe(false);
    expect(isSscc(gsin('7090001', 1))).toBe(false);
    expect(() => gsin('7090001', 10_000_000_000n)).toThrow(RangeError);
  });
});

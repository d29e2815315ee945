import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { gs1CheckDigit, gsin, inDrawnRange, isGsin, isSscc, sscc } from './gs1';

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

describe('inDrawnRange', () => {
  test('the GSINs and extension-0 SSCCs under the prefix, as gsin and sscc draw them; nothing else', () => {
    expect(inDrawnRange(gsin('7090001', 42), '7090001')).toBe(true);
    expect(inDrawnRange(sscc('7090001', 42), '7090001')).toBe(true);
    expect(inDrawnRange(sscc('7090001', 42, 3), '7090001')).toBe(false);
    expect(inDrawnRange(gsin('7312345', 42), '7090001')).toBe(false);
    // A wrong check digit is no number anyone drew (it is refused as such).
    const drawn = gsin('7090001', 42);
    expect(inDrawnRange(`${drawn.slice(0, -1)}${(Number(drawn.at(-1)) + 1) % 10}`, '7090001')).toBe(false);
    expect(inDrawnRange('PARCEL-1', '7090001')).toBe(false);
  });
});

import fc from 'fast-check';
import { expect, test } from 'vitest';
import { isKid, kidOf, mod10CheckDigit } from './kid';

test('MOD10 check digits of known KIDs', () => {
  // Published Luhn examples: 7992739871 → 3; 1234567 → 4 (Nets' KID example 12345674).
  expect(mod10CheckDigit('7992739871')).toBe(3);
  expect(mod10CheckDigit('1234567')).toBe(4);
  expect(kidOf(1234567)).toBe('12345674');
  expect(isKid('12345674')).toBe(true);
  expect(isKid('12345675')).toBe(false);
});

test('every KID made from an invoice number is valid, and any single changed digit is caught', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 2_000_000_000 }),
      fc.nat({ max: 30 }),
      fc.integer({ min: 1, max: 9 }),
      (nr, pos, delta) => {
        const kid = kidOf(nr);
        expect(isKid(kid)).toBe(true);
        expect(kid.slice(0, -1)).toBe(String(nr));
        const i = pos % kid.length;
        const changed = `${kid.slice(0, i)}${(Number(kid[i]) + delta) % 10}${kid.slice(i + 1)}`;
        expect(isKid(changed)).toBe(false);
      },
    ),
  );
});

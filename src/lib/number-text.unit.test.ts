import { expect, test } from 'vitest';
import { numberText } from './number-text';

test('a number reads as a template literal writes it; NaN and Infinity as JSON does', () => {
  for (const n of [
    0, -0, 7, 59, 99_998_000, 1_795_780_419_524, 0.1, 12.5, 0.823_456_789_012_3, -3.25, 1e21, 5e-7,
  ]) {
    expect(numberText(n)).toBe(`${n}`);
  }
  expect(numberText(Number.NaN)).toBe('null');
  expect(numberText(Number.POSITIVE_INFINITY)).toBe('null');
});

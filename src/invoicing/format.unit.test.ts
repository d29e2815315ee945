import { expect, test } from 'vitest';
import { decimalText, nokText, norwegianDate } from './format';

test('Norwegian print formats: money, numbers and dates', () => {
  expect(nokText(123_450)).toBe('1 234,50');
  expect(nokText(-1_240)).toBe('-12,40');
  expect(nokText(5)).toBe('0,05');
  expect(nokText(0)).toBe('0,00');
  expect(nokText(12_345_678_901)).toBe('123 456 789,01');
  expect(decimalText(1234.5, 1)).toBe('1 234,5');
  expect(decimalText(16.5, 1)).toBe('16,5');
  expect(norwegianDate('2026-11-25')).toBe('25.11.2026');
});

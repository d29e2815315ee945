import { describe, expect, test } from 'vitest';
import { isSplit } from './rules';

describe('the split rule (IsSplitted, Split)', () => {
  test('no pickup scan yet is not a split', () => {
    expect(isSplit({ pickupDays: 0, pickedParcels: 0, count: 3 })).toBe(false);
    expect(isSplit({ pickupDays: 0, pickedParcels: 0, count: 3 })).toBe(false);
  });

  test('every parcel picked up on one day is not a split', () => {
    expect(isSplit({ pickupDays: 1, pickedParcels: 3, count: 3 })).toBe(false);
  });

  test('some parcels picked up and others not yet is a split', () => {
    expect(isSplit({ pickupDays: 1, pickedParcels: 1, count: 3 })).toBe(true);
  });

  test('parcels picked up on different days is a split, even when all are picked up', () => {
    expect(isSplit({ pickupDays: 2, pickedParcels: 3, count: 3 })).toBe(true);
  });
});

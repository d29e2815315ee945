import { describe, expect, test } from 'vitest';
import { isSplit, ONE_PICKUP_SECONDS } from './rules';

describe('the split rule (IsSplitted, Split)', () => {
  test('no pickup scan yet is not a split', () => {
    expect(isSplit({ pickupSpanSeconds: 0, pickedParcels: 0, count: 3 })).toBe(false);
  });

  test('every parcel picked up in one visit is not a split', () => {
    expect(isSplit({ pickupSpanSeconds: 0, pickedParcels: 3, count: 3 })).toBe(false);
    expect(isSplit({ pickupSpanSeconds: ONE_PICKUP_SECONDS, pickedParcels: 3, count: 3 })).toBe(false);
  });

  test('some parcels picked up and others not yet is a split', () => {
    expect(isSplit({ pickupSpanSeconds: 0, pickedParcels: 1, count: 3 })).toBe(true);
  });

  test('parcels picked up in two visits is a split, on one day or on two', () => {
    expect(isSplit({ pickupSpanSeconds: ONE_PICKUP_SECONDS + 1, pickedParcels: 3, count: 3 })).toBe(true);
    expect(isSplit({ pickupSpanSeconds: 6 * 3600, pickedParcels: 3, count: 3 })).toBe(true);
  });
});

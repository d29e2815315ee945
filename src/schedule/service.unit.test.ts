import { describe, expect, test } from 'vitest';
import { createScheduleService } from './service';

// The pickup-date default needs only the clock; the catalogue and terminals are not touched.
const at = (iso: string) =>
  createScheduleService({ catalog: {} as never, terminals: {} as never, clock: () => new Date(iso) });

describe('earliest pickup date', () => {
  test('before 16:00 Oslo time it is today', () => {
    expect(at('2026-11-23T14:59:00Z').earliestPickupDate()).toBe('2026-11-23'); // 15:59 in Oslo
  });

  test('from 16:00 Oslo time it is the next working day', () => {
    expect(at('2026-11-23T15:00:00Z').earliestPickupDate()).toBe('2026-11-24');
    expect(at('2026-11-27T15:30:00Z').earliestPickupDate()).toBe('2026-11-30'); // Friday evening → Monday
  });

  test('on a weekend or holiday it is the next working day', () => {
    expect(at('2026-12-24T08:00:00Z').earliestPickupDate()).toBe('2026-12-28');
    expect(at('2026-05-17T08:00:00Z').earliestPickupDate()).toBe('2026-05-18');
  });

  test('the Oslo date counts, not the UTC date', () => {
    // 23:30 UTC on Sunday 22 November is 00:30 Monday in Oslo.
    expect(at('2026-11-22T23:30:00Z').earliestPickupDate()).toBe('2026-11-23');
  });
});

describe('working days query', () => {
  const schedule = at('2026-11-23T09:00:00Z');
  test('from after to and over-long intervals are rejected on the to field', () => {
    expect(() => schedule.workingDays('2026-02-02', '2026-02-01')).toThrow();
    expect(() => schedule.workingDays('2026-01-01', '2027-01-02')).not.toThrow();
    expect(() => schedule.workingDays('2026-01-01', '2027-01-03')).toThrow();
  });
});

import { describe, expect, test } from 'vitest';
import { formatOslo, parseOsloDateTime, parseZoned } from './oslo-time';

describe('Oslo local time', () => {
  test('a zone-less time is Oslo time, in winter and in summer', () => {
    expect(parseOsloDateTime('2026-11-23T10:15:00')?.toISOString()).toBe('2026-11-23T09:15:00.000Z');
    expect(parseOsloDateTime('2026-07-01T10:00')?.toISOString()).toBe('2026-07-01T08:00:00.000Z');
    expect(parseOsloDateTime('2026-11-23')?.toISOString()).toBe('2026-11-22T23:00:00.000Z');
  });

  test('an explicit zone is honoured; nonsense is null', () => {
    expect(parseOsloDateTime('2026-11-23T10:15:00Z')?.toISOString()).toBe('2026-11-23T10:15:00.000Z');
    expect(parseOsloDateTime('2026-11-23T10:15:00+02:00')?.toISOString()).toBe('2026-11-23T08:15:00.000Z');
    expect(parseOsloDateTime('2026-02-30T10:00:00')).toBeNull();
    expect(parseOsloDateTime('2026-11-23T25:00:00')).toBeNull();
    expect(parseOsloDateTime('yesterday')).toBeNull();
  });

  test('a zoned time must be a strict ISO 8601 time of a real day: `new Date` rolls and guesses', () => {
    // 31 November once read as 1 December; free-form text ending in an offset was read too.
    expect(parseOsloDateTime('2026-11-31T00:00:00Z')).toBeNull();
    expect(parseOsloDateTime('2026-02-29T12:00:00+01:00')).toBeNull();
    expect(parseOsloDateTime('2026-11-23T24:00:00Z')).toBeNull();
    expect(parseOsloDateTime('2026-11-23T10:00:00+15:00')).toBeNull();
    expect(parseOsloDateTime('Fri Nov 27 2026 23:55:00 +01:00')).toBeNull();
    expect(parseZoned('2026-11-23T10:15:00.1234567-0230')?.toISOString()).toBe('2026-11-23T12:45:00.123Z');
    expect(parseZoned('2026-11-23T10:15z')?.toISOString()).toBe('2026-11-23T10:15:00.000Z');
    expect(parseZoned('2026-11-23T10:15:00')).toBeNull();
  });

  test('a local time the clocks pass twice is the first; one they skip is read an hour on', () => {
    // 25 October 2026: 03:00 CEST becomes 02:00 CET, so 02:30 happens twice.
    expect(parseOsloDateTime('2026-10-25T02:30:00')?.toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(parseOsloDateTime('2026-10-25T03:30:00')?.toISOString()).toBe('2026-10-25T02:30:00.000Z');
    // 29 March 2026: 02:00 CET becomes 03:00 CEST, so 02:30 never happens.
    expect(parseOsloDateTime('2026-03-29T02:30:00')?.toISOString()).toBe('2026-03-29T01:30:00.000Z');
  });

  test('formatting gives the response form in Oslo time', () => {
    expect(formatOslo(new Date('2026-11-23T09:15:00Z'))).toBe('2026-11-23T10:15:00');
    expect(formatOslo(new Date('2026-07-01T08:00:00Z'))).toBe('2026-07-01T10:00:00');
  });
});

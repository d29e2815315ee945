import { describe, expect, test } from 'vitest';
import { formatOslo, parseOsloDateTime } from './oslo-time';

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

  test('formatting gives the response form in Oslo time', () => {
    expect(formatOslo(new Date('2026-11-23T09:15:00Z'))).toBe('2026-11-23T10:15:00');
    expect(formatOslo(new Date('2026-07-01T08:00:00Z'))).toBe('2026-07-01T10:00:00');
  });
});

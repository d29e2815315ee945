import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  assignTerminals,
  bandDays,
  coordinatesOf,
  distanceKm,
  nearestTerminal,
  TRANSIT_EXCEPTIONS,
  transitMatrix,
} from './terminals-routing';

const T = [
  { code: 'OSL', lat: 59.93, lon: 10.844 },
  { code: 'BGO', lat: 60.293, lon: 5.256 },
  { code: 'TRD', lat: 63.36, lon: 10.36 },
  { code: 'TOS', lat: 69.6492, lon: 18.9553 },
  { code: 'LYR', lat: 78.2232, lon: 15.6267 },
  { code: 'BOO', lat: 67.2804, lon: 14.4049 },
  { code: 'SVJ', lat: 68.2343, lon: 14.5683 },
  { code: 'DRM', lat: 59.7441, lon: 10.2045 },
];
const pointArb = fc.record({
  lat: fc.double({ min: 57.9, max: 71.2, noNaN: true }),
  lon: fc.double({ min: 4.5, max: 31, noNaN: true }),
});

describe('nearest terminal', () => {
  test('no other terminal is nearer than the chosen one (property)', () => {
    fc.assert(
      fc.property(pointArb, (p) => {
        const best = nearestTerminal(p, T);
        expect(best).not.toBeNull();
        const d = distanceKm(p, best ?? p);
        for (const t of T) expect(distanceKm(p, t) >= d).toBe(true);
      }),
    );
  });

  test('the answer does not depend on the order of the terminals (property)', () => {
    fc.assert(
      fc.property(pointArb, fc.shuffledSubarray(T, { minLength: T.length }), (p, shuffled) => {
        expect(nearestTerminal(p, shuffled)?.code).toBe(nearestTerminal(p, T)?.code);
      }),
    );
  });
});

describe('assignment', () => {
  const codes = [
    { postalCode: '0150', municipalityCode: '0301', lat: 59.91, lon: 10.75 },
    { postalCode: '0151', municipalityCode: '0301', lat: null, lon: null },
    { postalCode: '5003', municipalityCode: '4601', lat: 60.39, lon: 5.32 },
    { postalCode: '9999', municipalityCode: '9999', lat: null, lon: null },
  ];

  test('a code without coordinates takes its municipality’s mean; without either it has none', () => {
    const c = coordinatesOf(codes);
    expect(c.get('0151')).toEqual({ lat: 59.91, lon: 10.75 });
    expect(c.get('9999')).toBeNull();
  });

  test('an override wins when it names a known terminal; an unknown one is ignored', () => {
    const a = assignTerminals(
      codes,
      T,
      new Map([
        ['0150', 'BGO'],
        ['5003', 'XXX'],
      ]),
    );
    expect(Object.fromEntries(a)).toEqual({ '0150': 'BGO', '0151': 'OSL', '5003': 'BGO', '9999': null });
  });
});

describe('transit days', () => {
  test('distance bands', () => {
    expect(bandDays(0).days).toBe(1);
    expect(bandDays(150).days).toBe(1);
    expect(bandDays(150.1).days).toBe(2);
    expect(bandDays(450).days).toBe(2);
    expect(bandDays(900).days).toBe(3);
    expect(bandDays(901)).toEqual({ days: 4, basis: 'band over 900 km' });
  });

  const matrix = transitMatrix(T);
  const days = new Map(matrix.map((r) => [`${r.fromTerminal}>${r.toTerminal}`, r]));

  test('every ordered pair once, symmetric', () => {
    expect(matrix).toHaveLength(T.length * T.length);
    for (const r of matrix) expect(days.get(`${r.toTerminal}>${r.fromTerminal}`)?.days).toBe(r.days);
  });

  test('documented exceptions override the bands', () => {
    expect(days.get('OSL>BGO')).toEqual({
      fromTerminal: 'OSL',
      toTerminal: 'BGO',
      days: 1,
      basis: 'exception: overnight trunk line',
    });
    expect(days.get('SVJ>BOO')?.days).toBe(2);
    // Bodø–Svolvær is in the first band as the crow flies.
    expect(bandDays(distanceKm({ lat: 67.2804, lon: 14.4049 }, { lat: 68.2343, lon: 14.5683 })).days).toBe(1);
    expect(TRANSIT_EXCEPTIONS.every((e) => e.reason.length > 0)).toBe(true);
  });

  test('Svalbard goes through Tromsø: the mainland leg plus two days', () => {
    expect(days.get('TOS>LYR')?.days).toBe(2);
    expect(days.get('OSL>LYR')?.days).toBe((days.get('OSL>TOS')?.days ?? 0) + 2);
    expect(days.get('LYR>LYR')?.days).toBe(1);
  });

  test('no pair is promised slower than a way through another terminal', () => {
    // Once Oslo–Namsos took 3 days by distance, while Oslo–Trondheim–Namsos takes 1 + 1.
    const withNamsos = transitMatrix([...T, { code: 'NAM', lat: 64.4663, lon: 11.4958 }]);
    const d = new Map(withNamsos.map((r) => [`${r.fromTerminal}>${r.toTerminal}`, r]));
    expect(d.get('OSL>NAM')).toMatchObject({ days: 2, basis: 'through TRD: 1 + 1 days' });
    expect(d.get('NAM>OSL')?.days).toBe(2);
    const codes = [...new Set(withNamsos.map((r) => r.fromTerminal))];
    const at = (a: string, b: string) => d.get(`${a}>${b}`)?.days ?? Number.NaN;
    for (const a of codes)
      for (const b of codes)
        for (const via of codes) {
          if (a !== b && via !== a && via !== b)
            expect(at(a, b), `${a}>${b} via ${via}`).toBeLessThanOrEqual(at(a, via) + at(via, b));
        }
  });
});

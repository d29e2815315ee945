import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { distanceKm } from '../reference-data/terminals-routing';
import { generateSandboxPoints, type PickupPointRecord, type RegisterRow } from './sandbox';
import { nearest } from './service';

const pointArb = fc.record({
  id: fc.integer({ min: 1, max: 1_000_000 }),
  lat: fc.double({ min: 57.9, max: 71.2, noNaN: true }),
  lon: fc.double({ min: 4.5, max: 31, noNaN: true }),
});
const record = (p: { id: number; lat: number; lon: number }): PickupPointRecord => ({
  ...p,
  name: `P${p.id}`,
  address: 'A 1',
  postalCode: '0150',
  place: 'OSLO',
  openingHours: 'Mo-Fr 08:00-16:00',
  sandbox: true,
});

describe('nearest', () => {
  test('lists are sorted by distance, hold min(limit, count) points and none nearer was left out', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(pointArb, { selector: (p) => p.id, maxLength: 60 }),
        pointArb,
        fc.integer({ min: 1, max: 100 }),
        (raw, from, limit) => {
          const points = raw.map(record);
          const list = nearest(points, from, limit);
          expect(list).toHaveLength(Math.min(limit, points.length));
          for (let i = 1; i < list.length; i++) {
            expect((list[i]?.km ?? 0) >= (list[i - 1]?.km ?? 0)).toBe(true);
          }
          const last = list.at(-1)?.km ?? Number.POSITIVE_INFINITY;
          const chosen = new Set(list.map((x) => x.point.id));
          for (const p of points) if (!chosen.has(p.id)) expect(distanceKm(from, p) >= last).toBe(true);
        },
      ),
    );
  });

  test('points at the same distance come by id, whatever the order of the list', () => {
    const spots = [
      { lat: 59.91, lon: 10.75 },
      { lat: 60.39, lon: 5.32 },
    ];
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 1_000 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 100 }),
        (ids, limit) => {
          const points = ids.map((id) => record({ id, ...(spots[id % 2] as { lat: number; lon: number }) }));
          const expected = [...points]
            .map((point) => ({ point, km: distanceKm(spots[0] as { lat: number; lon: number }, point) }))
            .sort((a, b) => a.km - b.km || a.point.id - b.point.id)
            .slice(0, limit);
          expect(nearest(points, spots[0] as { lat: number; lon: number }, limit)).toEqual(expected);
        },
      ),
    );
  });

  test('a search in a large import keeps the same best points a full sort would', () => {
    const points = Array.from({ length: 50_000 }, (_, i) =>
      record({ id: i + 1, lat: 58 + ((i * 7919) % 13_000) / 1000, lon: 5 + ((i * 104_729) % 26_000) / 1000 }),
    );
    const from = { lat: 59.91, lon: 10.75 };
    const sortAll = points
      .map((point) => ({ point, km: distanceKm(from, point) }))
      .sort((a, b) => a.km - b.km || a.point.id - b.point.id);
    for (const limit of [1, 7, 100]) expect(nearest(points, from, limit)).toEqual(sortAll.slice(0, limit));
  });

  test('great-circle distance: Oslo to Bergen is about 305 km, and symmetric', () => {
    const oslo = { lat: 59.9139, lon: 10.7522 };
    const bergen = { lat: 60.3913, lon: 5.3221 };
    expect(distanceKm(oslo, bergen)).toBeGreaterThan(300);
    expect(distanceKm(oslo, bergen)).toBeLessThan(310);
    expect(distanceKm(bergen, oslo)).toBeCloseTo(distanceKm(oslo, bergen), 9);
  });
});

describe('sandbox generation', () => {
  const row = (postalCode: string, place: string, municipalityCode: string, category = 'G'): RegisterRow => ({
    postalCode,
    place,
    municipalityCode,
    category,
    lat: 60 + Number(postalCode) / 10_000,
    lon: 10,
  });

  test('one point per started ten street codes of a place with several; one for a municipality left without', () => {
    const register = [
      ...Array.from({ length: 12 }, (_, i) => row(String(1000 + i), 'BIGTOWN', '0001')),
      row('2000', 'VILLAGE', '0002'),
      row('2001', 'VILLAGE', '0002', 'P'),
      row('3000', 'BOXES', '0003', 'P'),
    ];
    const points = generateSandboxPoints(register);
    expect(points.map((p) => p.id)).toEqual([11000, 11010, 12000]);
    expect(points.every((p) => p.sandbox && p.name.includes('sandbox'))).toBe(true);
  });

  test('the same register always gives the same points, in any input order', () => {
    const register = Array.from({ length: 30 }, (_, i) => row(String(4000 + i), i % 2 ? 'A' : 'B', '0004'));
    expect(generateSandboxPoints([...register].reverse())).toEqual(generateSandboxPoints(register));
  });
});

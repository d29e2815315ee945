import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import { DATA_DIR, readCsv } from '../reference-data/files';
import { generateSandboxPoints, type RegisterCsvRow, registerRowOf, sandboxCsv } from './sandbox';
import type { PickupPointView } from './schemas';

let ctx: TestContext;
let key: string;

beforeAll(async () => {
  ctx = await buildTestApp();
  key = await ctx.keyFor({ scopes: ['booking'] });
});
afterAll(() => ctx.close());

const get = (url: string) => ctx.app.inject({ url, headers: bearer(key) });
const list = (res: { json(): unknown }) => res.json() as PickupPointView[];
const errorKeys = (res: { json(): unknown }) => Object.keys((res.json() as { errors: object }).errors).sort();
const register = readCsv<RegisterCsvRow>('postal-codes-no.csv').rows.map(registerRowOf);

describe('the shipped sandbox set', () => {
  test('is what the generator makes of the shipped postal register', () => {
    const shipped = readFileSync(join(DATA_DIR, 'pickup-points-sandbox.csv'), 'utf8');
    expect(shipped).toBe(sandboxCsv(generateSandboxPoints(register)));
  });

  test('has a point in every municipality with street addresses, each with a unique id', () => {
    const points = generateSandboxPoints(register);
    expect(new Set(points.map((p) => p.id)).size).toBe(points.length);
    const withStreets = new Set(
      register.filter((r) => r.category === 'G' || r.category === 'B').map((r) => r.municipalityCode),
    );
    const municipalityOf = new Map(register.map((r) => [r.postalCode, r.municipalityCode]));
    const covered = new Set(points.map((p) => municipalityOf.get(p.postalCode)));
    expect([...withStreets].filter((m) => !covered.has(m))).toEqual([]);
  });
});

describe('GET /v1/pickuppoints', () => {
  test('the nearest points first, with distance, opening hours and the sandbox mark', async () => {
    const res = await get('/v1/pickuppoints?postalCode=0154&limit=5');
    expect(res.statusCode).toBe(200);
    const points = list(res);
    expect(points).toHaveLength(5);
    expect(points[0]).toMatchObject({ Id: 10154, Zip: '0154', Place: 'OSLO', DistanceKm: 0, Sandbox: true });
    expect(points[0]?.OpeningHours).toMatch(/^Mo-/);
    for (const p of points)
      expect(Object.keys(p).sort()).toEqual([
        'Address',
        'DistanceKm',
        'Id',
        'Latitude',
        'Longitude',
        'Name',
        'OpeningHours',
        'Place',
        'Sandbox',
        'Zip',
      ]);
  });

  test('ten points by default; parameter names are case-insensitive', async () => {
    expect(list(await get('/v1/pickuppoints?postalCode=5003'))).toHaveLength(10);
    expect(list(await get('/v1/pickuppoints?POSTALCODE=5003&Limit=3'))).toHaveLength(3);
  });

  test('a code without its own coordinate uses its municipality’s position', async () => {
    // 8845 SELØY has no coordinate; its municipality, Herøy in Nordland, lies near 66.0° N 12.3° E.
    const res = await get('/v1/pickuppoints?postalCode=8845&limit=1');
    expect(res.statusCode).toBe(200);
    const [nearest] = list(res);
    expect(nearest?.DistanceKm).toBeLessThan(60);
    expect(Math.abs((nearest?.Latitude ?? 0) - 66)).toBeLessThan(0.5);
  });

  test('nearest-first lists are sorted by distance for any postal code and limit (property)', async () => {
    const codes = register.map((r) => r.postalCode);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...codes), fc.integer({ min: 1, max: 100 }), async (code, limit) => {
        const res = await get(`/v1/pickuppoints?postalCode=${code}&limit=${limit}`);
        expect(res.statusCode).toBe(200);
        const points = list(res);
        expect(points).toHaveLength(limit);
        for (let i = 1; i < points.length; i++) {
          expect((points[i]?.DistanceKm ?? 0) >= (points[i - 1]?.DistanceKm ?? 0)).toBe(true);
        }
      }),
      { numRuns: 30 },
    );
  });

  test('limit out of 1–100, unknown or malformed postal codes are 400s naming the parameter', async () => {
    for (const limit of ['0', '101', 'x', '2.5']) {
      const res = await get(`/v1/pickuppoints?postalCode=0154&limit=${limit}`);
      expect(res.statusCode, limit).toBe(400);
      expect(errorKeys(res)).toEqual(['limit']);
    }
    for (const code of ['0000', '15O', '']) {
      const res = await get(`/v1/pickuppoints?postalCode=${code}`);
      expect(res.statusCode, code).toBe(400);
      expect(errorKeys(res)).toEqual(['postalCode']);
    }
    expect(errorKeys(await get('/v1/pickuppoints'))).toEqual(['postalCode']);
  });

  test('needs a key', async () => {
    expect((await ctx.app.inject({ url: '/v1/pickuppoints?postalCode=0154' })).statusCode).toBe(401);
  });
});

describe('GET /v1/pickuppoints/{id}', () => {
  test('reads one point; the distance is null', async () => {
    const res = await get('/v1/pickuppoints/10154');
    expect(res.statusCode).toBe(200);
    expect(json(res)).toMatchObject({ Id: 10154, Zip: '0154', DistanceKm: null, Sandbox: true });
  });

  test('an unknown id is 404; a malformed one is 400 naming id', async () => {
    expect((await get('/v1/pickuppoints/999')).statusCode).toBe(404);
    for (const id of ['abc', '0', '99999999999']) {
      const res = await get(`/v1/pickuppoints/${id}`);
      expect(res.statusCode, id).toBe(400);
      expect(errorKeys(res)).toEqual(['id']);
    }
  });

  test('the service tells booking whether an id exists', async () => {
    expect(await ctx.services.pickupPoints.get(10154)).not.toBeNull();
    expect(await ctx.services.pickupPoints.get(999)).toBeNull();
    expect(await ctx.services.pickupPoints.get(999)).toBeNull();
  });
});

describe('PUT /admin/pickup-points', () => {
  const point = (over: object = {}) => ({
    Id: 4711,
    Name: 'Coop Extra Øya',
    Address: 'Øyavegen 1',
    Zip: '5003',
    Place: 'BERGEN',
    Latitude: 60.39,
    Longitude: 5.32,
    OpeningHours: 'Mo-Sa 07:00-23:00',
    ...over,
  });
  const put = (payload: object, k = ADMIN_KEY) =>
    ctx.app.inject({ method: 'PUT', url: '/admin/pickup-points', headers: bearer(k), payload });

  test('needs the admin scope', async () => {
    expect((await put({ PickupPoints: [point()] }, key)).statusCode).toBe(403);
  });

  test('duplicate ids, unknown zips and bad coordinates are 400s naming the fields, and change nothing', async () => {
    const res = await put({ PickupPoints: [point(), point({ Zip: '0000' })] });
    expect(res.statusCode).toBe(400);
    expect(errorKeys(res)).toEqual(['PickupPoints[1].Id', 'PickupPoints[1].Zip']);
    const schema = await put({ PickupPoints: [point({ Latitude: 12 })] });
    expect(errorKeys(schema)).toEqual(['PickupPoints[0].Latitude']);
    // A name an import does not have is refused, not dropped.
    const misspelt = await put({ PickupPoints: [point({ OpeningHour: 'Mo-Fr 08:00-16:00' })] });
    expect(errorKeys(misspelt)).toEqual(['PickupPoints[0].OpeningHour']);
    expect(await ctx.services.pickupPoints.get(10154)).not.toBeNull();
  });

  test('a point at a service postal code is refused: no booking could be delivered there', async () => {
    // Once imported, and every booking to it then refused: 0045 is a business-reply code.
    const res = await put({ PickupPoints: [point({ Zip: '0045', Place: 'OSLO' })] });
    expect(res.statusCode).toBe(400);
    expect(json<{ errors: Record<string, string[]> }>(res).errors).toEqual({
      'PickupPoints[0].Zip': ['Postal code 0045 is a service code, not used in addresses.'],
    });
    expect(await ctx.services.pickupPoints.get(10154)).not.toBeNull();
  });

  test('schema and rule violations come in one 400: a bad latitude, a duplicate id and an unknown zip', async () => {
    const res = await put({
      PickupPoints: [
        point({ Latitude: 12 }),
        point({ Id: 4712 }),
        point({ Id: 4712, Zip: '0000' }),
        point({ Id: 4713, Zip: '0000', Longitude: 'east' }),
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(errorKeys(res)).toEqual([
      'PickupPoints[0].Latitude',
      'PickupPoints[2].Id',
      'PickupPoints[2].Zip',
      'PickupPoints[3].Longitude',
      'PickupPoints[3].Zip',
    ]);
    expect(await ctx.services.pickupPoints.get(10154)).not.toBeNull();
    expect(await ctx.services.pickupPoints.get(4712)).toBeNull();
  });

  test('an import replaces the sandbox set and survives a restart', async () => {
    const res = await put({
      PickupPoints: [
        point(),
        point({ Id: 4712, Zip: '0154', Place: 'OSLO', Latitude: 59.91, Longitude: 10.75 }),
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({ Count: 2 });
    const near = list(await get('/v1/pickuppoints?postalCode=5003&limit=100'));
    expect(near.map((p) => p.Id)).toEqual([4711, 4712]);
    expect(near[0]?.Sandbox).toBe(false);
    expect(await ctx.services.pickupPoints.get(10154)).toBeNull();
    expect(await ctx.services.pickupPoints.loadShipped()).toBe(false);
    expect(await ctx.services.pickupPoints.get(4711)).not.toBeNull();
  });
});

import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import { postalCodes, referenceDataLoads } from './tables';

let ctx: TestContext;
let key: string;

beforeAll(async () => {
  ctx = await buildTestApp();
  key = await ctx.keyFor({ scopes: ['price'] });
});
afterAll(() => ctx.close());

const lookup = (code: string) => ctx.app.inject({ url: `/v1/postalcodes/${code}`, headers: bearer(key) });

describe('GET /v1/postalcodes/{postalCode}', () => {
  test('0150 is OSLO with municipality and county', async () => {
    const res = await lookup('0150');
    expect(res.statusCode).toBe(200);
    expect(json(res)).toMatchObject({
      PostalCode: '0150',
      Place: 'OSLO',
      MunicipalityCode: '0301',
      Municipality: 'Oslo',
      CountyCode: '03',
      County: 'Oslo',
    });
  });

  test('Norwegian letters come through', async () => {
    expect(json(await lookup('9170')).Place).toBe('LONGYEARBYEN');
    expect(json(await lookup('8001')).Place).toBe('BODØ');
  });

  test('a code not in the register is 404; a malformed one is 400 naming postalCode', async () => {
    expect((await lookup('0000')).statusCode).toBe(404);
    const bad = await lookup('15O');
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(json(bad).errors as object)).toEqual(['postalCode']);
  });
});

describe('loading the shipped register', () => {
  test('the whole register is loaded once; a restart with the same file changes nothing', async () => {
    const count = async () => (await ctx.database.db.select().from(postalCodes)).length;
    expect(await count()).toBe(5122);
    expect(await ctx.services.postalCodes.loadShipped()).toBe(false);
    expect(await count()).toBe(5122);
  });

  test('a changed file updates rows in place and never duplicates', async () => {
    const { db } = ctx.database;
    // Simulate an older register: a changed place, a withdrawn code, and a different file hash.
    await db.update(postalCodes).set({ place: 'GAMMELBY' }).where(eq(postalCodes.postalCode, '0150'));
    await db.insert(postalCodes).values({
      postalCode: '0002',
      place: 'WITHDRAWN',
      municipalityCode: '0301',
      municipality: 'Oslo',
      countyCode: '03',
      county: 'Oslo',
      category: 'P',
      lat: null,
      lon: null,
    });
    await db.update(referenceDataLoads).set({ sha256: 'older' });
    expect(await ctx.services.postalCodes.loadShipped()).toBe(true);
    const rows = await db.select().from(postalCodes);
    expect(rows).toHaveLength(5122);
    expect(rows.find((r) => r.postalCode === '0150')?.place).toBe('OSLO');
    expect(rows.some((r) => r.postalCode === '0002')).toBe(false);
  });

  test('the admin import replaces the register in one go', async () => {
    const res = await ctx.app.inject({
      method: 'PUT',
      url: '/admin/postal-codes',
      headers: bearer(ADMIN_KEY),
      payload: {
        PostalCodes: [
          {
            PostalCode: '0150',
            Place: 'OSLO',
            MunicipalityCode: '0301',
            Municipality: 'Oslo',
            CountyCode: '03',
            County: 'Oslo',
            Category: 'G',
            Latitude: 59.91,
            Longitude: 10.75,
          },
          {
            PostalCode: '0150',
            Place: 'OSLO',
            MunicipalityCode: '0301',
            Municipality: 'Oslo',
            CountyCode: '03',
            County: 'Oslo',
            Category: 'G',
          },
        ],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(json(res).errors as object)).toEqual(['PostalCodes[1].PostalCode']);
    expect((await ctx.database.db.select().from(postalCodes)).length).toBe(5122);
  });
});

test("an admin import is the operator's: a release that changes the register file does not overwrite it", async () => {
  const { db } = ctx.database;
  // As if the database had loaded an older release's file: this release's file counts as changed.
  await db.update(referenceDataLoads).set({ sha256: 'an older release' });
  const PostalCodes = (await db.select().from(postalCodes)).map((r) => ({
    PostalCode: r.postalCode,
    Place: r.postalCode === '0150' ? 'OPERATØRBY' : r.place,
    MunicipalityCode: r.municipalityCode,
    Municipality: r.municipality,
    CountyCode: r.countyCode,
    County: r.county,
    Category: r.category,
    ...(r.lat === null || r.lon === null ? {} : { Latitude: r.lat, Longitude: r.lon }),
  }));
  const put = () =>
    ctx.app.inject({
      method: 'PUT',
      url: '/admin/postal-codes',
      headers: bearer(ADMIN_KEY),
      payload: { PostalCodes },
    });
  // Two at once follow one another (each deletes and re-inserts the whole register).
  const answers = await Promise.all([put(), put()]);
  expect(answers.map((r) => r.statusCode)).toEqual([200, 200]);
  expect(await ctx.services.postalCodes.loadShipped()).toBe(false);
  expect(json(await lookup('0150')).Place).toBe('OPERATØRBY');
});

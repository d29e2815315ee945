import { afterAll, beforeAll, expect, test } from 'vitest';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import { viewOf } from '../pickup-points/service';
import { pickupPoints } from '../pickup-points/tables';
import { postalCodes } from './tables';
import { terminalOverrides } from './terminals-tables';

// A postal register that withdraws codes where pickup points or terminal overrides stand is refused
// whole (409, naming them) unless RetireDependents: true removes them with the codes.

let ctx: TestContext;
let key: string;
beforeAll(async () => {
  ctx = await buildTestApp();
  key = await ctx.keyFor({ scopes: ['booking'] });
});
afterAll(() => ctx.close());

/** The stored register, less `without`, as an import body. */
async function registerWithout(without: readonly string[]) {
  const rows = await ctx.database.db.select().from(postalCodes);
  return rows
    .filter((r) => !without.includes(r.postalCode))
    .map((r) => ({
      PostalCode: r.postalCode,
      Place: r.place,
      MunicipalityCode: r.municipalityCode,
      Municipality: r.municipality,
      CountyCode: r.countyCode,
      County: r.county,
      Category: r.category,
      ...(r.lat === null || r.lon === null ? {} : { Latitude: r.lat, Longitude: r.lon }),
    }));
}

const put = (url: string, payload: object) =>
  ctx.app.inject({ method: 'PUT', url, headers: bearer(ADMIN_KEY), payload });

const importRegister = async (without: readonly string[], retire?: boolean) =>
  put('/admin/postal-codes', {
    PostalCodes: await registerWithout(without),
    ...(retire === undefined ? {} : { RetireDependents: retire }),
  });

test('withdrawing codes in use: refused whole, or retired with them when asked', async () => {
  const { db } = ctx.database;
  const points = await db.select().from(pickupPoints);
  const overrides = await db.select().from(terminalOverrides);
  const point = points[0];
  const override = overrides.find((o) => !points.some((p) => p.postalCode === o.postalCode));
  if (!point || !override) throw new Error('the shipped data has pickup points and terminal overrides');
  const atPoint = points.filter((p) => p.postalCode === point.postalCode).map((p) => p.id);
  const all = (await db.select().from(postalCodes)).map((r) => r.postalCode);
  const unused = all.find(
    (c) => !points.some((p) => p.postalCode === c) && !overrides.some((o) => o.postalCode === c),
  );
  if (!unused) throw new Error('some code has neither');

  // Refused, naming both, and nothing written: not even the unused code goes.
  const refused = await importRegister([point.postalCode, override.postalCode, unused]);
  expect(refused.statusCode).toBe(409);
  const detail = String(json(refused).detail);
  expect(detail).toContain(`pickup points ${point.id} (${point.postalCode})`);
  expect(detail).toContain(`terminal overrides ${override.postalCode}`);
  expect(detail).toContain('RetireDependents');
  expect((await db.select().from(postalCodes)).length).toBe(all.length);
  expect((await db.select().from(pickupPoints)).length).toBe(points.length);
  expect((await db.select().from(terminalOverrides)).length).toBe(overrides.length);

  // A code nothing stands at goes without asking.
  const plain = await importRegister([unused]);
  expect(plain.statusCode, plain.body).toBe(200);
  expect(json(plain)).toEqual({
    Count: all.length - 1,
    Withdrawn: [unused],
    RetiredPickupPoints: [],
    RetiredTerminalOverrides: [],
  });

  // Asked to, the dependents go with their codes, in the same transaction.
  const retired = await importRegister([unused, point.postalCode, override.postalCode], true);
  expect(retired.statusCode, retired.body).toBe(200);
  expect(json(retired)).toEqual({
    Count: all.length - 3,
    Withdrawn: [point.postalCode, override.postalCode].sort(),
    RetiredPickupPoints: atPoint,
    RetiredTerminalOverrides: [override.postalCode],
  });
  expect((await db.select().from(pickupPoints)).length).toBe(points.length - atPoint.length);
  expect((await db.select().from(terminalOverrides)).map((o) => o.postalCode)).not.toContain(
    override.postalCode,
  );
  const gone = await ctx.app.inject({ url: `/v1/pickuppoints/${point.id}`, headers: bearer(key) });
  expect(gone.statusCode).toBe(404);
});

/** A code of the register nothing stands at (no pickup point, no terminal override). */
async function codeStandingFree(): Promise<string> {
  const { db } = ctx.database;
  const [points, overrides] = await Promise.all([
    db.select().from(pickupPoints),
    db.select().from(terminalOverrides),
  ]);
  const taken = new Set([...points.map((p) => p.postalCode), ...overrides.map((o) => o.postalCode)]);
  const code = (await db.select().from(postalCodes)).map((r) => r.postalCode).find((c) => !taken.has(c));
  if (!code) throw new Error('some code has nothing standing at it');
  return code;
}

/** Every code something stands at is still in the register. */
async function nothingStandsOutside(): Promise<void> {
  const { db } = ctx.database;
  const register = new Set((await db.select().from(postalCodes)).map((r) => r.postalCode));
  const points = await db.select().from(pickupPoints);
  const overrides = await db.select().from(terminalOverrides);
  expect(points.filter((p) => !register.has(p.postalCode))).toEqual([]);
  expect(overrides.filter((o) => !register.has(o.postalCode))).toEqual([]);
}

// Each write judges the other's rows: unserialised, both checked before either wrote, both passed,
// and a pickup point or an override was left at a code the register no longer has.
test('a register withdrawing a code and a pickup-point import placing a point there, at once: not both', async () => {
  for (let round = 0; round < 4; round++) {
    const code = await codeStandingFree();
    const points = (await ctx.database.db.select().from(pickupPoints)).map((row) => {
      const { DistanceKm, Sandbox, ...point } = viewOf(row);
      return point;
    });
    const placed = { ...points[0], Id: 900_000 + round, Zip: code } as (typeof points)[number];
    const register = await registerWithout([code]);
    const [withdrawal, placing] = await Promise.all([
      put('/admin/postal-codes', { PostalCodes: register }),
      put('/admin/pickup-points', { PickupPoints: [...points, placed] }),
    ]);
    const passed = [withdrawal, placing].filter((r) => r.statusCode === 200);
    expect(passed, `round ${round}: ${withdrawal.statusCode} / ${placing.body}`).toHaveLength(1);
    await nothingStandsOutside();
  }
});

test('a register withdrawing a code and a routing replace overriding it, at once: not both', async () => {
  const terminals = [
    { Code: 'OSL', Name: 'Oslo', Place: 'OSLO', Latitude: 59.93, Longitude: 10.84 },
    { Code: 'BGO', Name: 'Bergen', Place: 'BERGEN', Latitude: 60.29, Longitude: 5.26 },
  ];
  for (let round = 0; round < 4; round++) {
    const code = await codeStandingFree();
    const register = await registerWithout([code]);
    const [withdrawal, overriding] = await Promise.all([
      put('/admin/postal-codes', { PostalCodes: register }),
      put('/admin/terminals', {
        Terminals: terminals,
        Overrides: [{ PostalCode: code, Terminal: 'OSL', Reason: 'race' }],
      }),
    ]);
    const passed = [withdrawal, overriding].filter((r) => r.statusCode === 200);
    expect(passed, `round ${round}: ${withdrawal.statusCode} / ${overriding.body}`).toHaveLength(1);
    await nothingStandsOutside();
  }
});

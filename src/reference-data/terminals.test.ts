import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import { DATA_DIR, readCsv } from './files';
import { postalCodes } from './tables';
import { readShippedRouting, readTerminalsFile, transitCsv } from './terminals-files';
import { assignTerminals } from './terminals-routing';
import { terminals, transitDays } from './terminals-tables';

let ctx: TestContext;
let key: string;

beforeAll(async () => {
  ctx = await buildTestApp();
  key = await ctx.keyFor({ scopes: ['price'] });
});
afterAll(() => ctx.close());

const terminalOf = async (code: string) =>
  json<{ Terminal: string | null }>(
    await ctx.app.inject({ url: `/v1/postalcodes/${code}`, headers: bearer(key) }),
  ).Terminal;

describe('shipped routing data', () => {
  test('every postal code of the register has a terminal, and it is a known terminal', async () => {
    const rows = await ctx.database.db.select().from(postalCodes);
    const codes = new Set((await ctx.database.db.select().from(terminals)).map((t) => t.code));
    expect(rows).toHaveLength(5122);
    expect(rows.filter((r) => r.terminal === null || !codes.has(r.terminal))).toEqual([]);
  });

  test('every ordered terminal pair has a transit time of at least one working day', async () => {
    const list = await ctx.database.db.select().from(terminals);
    const pairs = await ctx.database.db.select().from(transitDays);
    expect(list.length).toBeGreaterThanOrEqual(20);
    expect(pairs).toHaveLength(list.length * list.length);
    const days = new Map(pairs.map((p) => [`${p.fromTerminal}>${p.toTerminal}`, p.days]));
    for (const a of list) {
      for (const b of list) {
        expect(days.get(`${a.code}>${b.code}`), `${a.code}>${b.code}`).toBeGreaterThanOrEqual(1);
        expect(days.get(`${a.code}>${b.code}`)).toBe(days.get(`${b.code}>${a.code}`));
      }
    }
  });

  test('the shipped transit file is what the bands and documented exceptions give', () => {
    const shipped = readFileSync(join(DATA_DIR, 'transit-days.csv'), 'utf8');
    expect(shipped).toBe(transitCsv(readTerminalsFile().rows));
  });

  test('the stored assignment is the nearest terminal unless overridden', async () => {
    const { data } = readShippedRouting();
    const rows = await ctx.database.db.select().from(postalCodes);
    const expected = assignTerminals(
      rows,
      data.terminals,
      new Map(data.overrides.map((o) => [o.postalCode, o.terminal])),
    );
    expect(rows.every((r) => r.terminal === expected.get(r.postalCode))).toBe(true);
  });

  test('every override names a postal code of the register, a known terminal and a reason', () => {
    const { data } = readShippedRouting();
    const register = new Set(
      readCsv<{ postal_code: string }>('postal-codes-no.csv').rows.map((r) => r.postal_code),
    );
    const codes = new Set(data.terminals.map((t) => t.code));
    expect(data.overrides.length).toBeGreaterThan(0);
    for (const o of data.overrides) {
      expect(register.has(o.postalCode), o.postalCode).toBe(true);
      expect(codes.has(o.terminal), o.terminal).toBe(true);
      expect(o.reason.length).toBeGreaterThan(5);
    }
  });
});

describe('GET /v1/postalcodes/{postalCode} Terminal', () => {
  test('the nearest terminal serves ordinary codes', async () => {
    expect(await terminalOf('0150')).toBe('OSL');
    expect(await terminalOf('5003')).toBe('BGO');
    expect(await terminalOf('7010')).toBe('TRD');
    expect(await terminalOf('9170')).toBe('LYR');
  });

  test('overrides win over the nearest terminal (across the Oslofjord, Hallingdal, the Vestfjorden)', async () => {
    // Moss is nearer Tønsberg as the crow flies, but Tønsberg is across the fjord.
    expect(await terminalOf('1530')).toBe('FRE');
    expect(await terminalOf('1440')).toBe('OSL');
    expect(await terminalOf('3580')).toBe('DRM');
    expect(await terminalOf('8286')).toBe('BOO');
    expect(await terminalOf('8099')).toBe('BOO');
  });
});

describe('terminal service', () => {
  test('a restart with unchanged files loads nothing', async () => {
    expect(await ctx.services.terminals.loadShipped()).toBe(false);
  });

  test('the route of two postal codes gives both terminals and the transit days', async () => {
    expect(await ctx.services.terminals.route('0150', '5003')).toEqual({
      fromTerminal: 'OSL',
      toTerminal: 'BGO',
      transitDays: 1,
    });
    expect(await ctx.services.terminals.route('0150', '9170')).toMatchObject({
      toTerminal: 'LYR',
      transitDays: 6,
    });
    expect(await ctx.services.terminals.route('0150', '0000')).toBeNull();
    expect(await ctx.services.terminals.transitDays('OSL', 'XXX')).toBeNull();
  });
});

describe('GET /v1/terminals', () => {
  test('lists every terminal with its coordinates', async () => {
    const res = await ctx.app.inject({ url: '/v1/terminals', headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    const list = json<{ Code: string }[]>(res) as unknown as { Code: string; Latitude: number }[];
    expect(list.map((t) => t.Code)).toContain('OSL');
    expect(list.find((t) => t.Code === 'OSL')?.Latitude).toBeCloseTo(59.93, 2);
  });

  test('needs a key', async () => {
    expect((await ctx.app.inject({ url: '/v1/terminals' })).statusCode).toBe(401);
  });
});

describe('PUT /admin/terminals', () => {
  const put = (payload: object, k = ADMIN_KEY) =>
    ctx.app.inject({ method: 'PUT', url: '/admin/terminals', headers: bearer(k), payload });
  const two = [
    { Code: 'OSL', Name: 'Oslo', Place: 'OSLO', Latitude: 59.93, Longitude: 10.84 },
    { Code: 'BGO', Name: 'Bergen', Place: 'BERGEN', Latitude: 60.29, Longitude: 5.26 },
  ];

  test('needs the admin scope', async () => {
    expect((await put({ Terminals: two, Overrides: [] }, key)).statusCode).toBe(403);
  });

  /** A refused replace: a 400 naming exactly `fields`, and the routing as it was (1530 still FRE). */
  const expectRefused = async (res: Awaited<ReturnType<typeof put>>, fields: string[]) => {
    expect(res.statusCode).toBe(400);
    expect(Object.keys(json(res).errors as object).sort()).toEqual(fields);
    expect(await terminalOf('1530')).toBe('FRE');
  };

  test('an incomplete transit table, an unknown terminal and an unknown postal code are 400s naming the fields', async () => {
    const res = await put({
      Terminals: two,
      TransitDays: [{ From: 'OSL', To: 'BGO', Days: 1 }],
      Overrides: [
        { PostalCode: '0150', Terminal: 'TRD', Reason: 'test' },
        { PostalCode: '0000', Terminal: 'OSL', Reason: 'test' },
      ],
    });
    await expectRefused(res, ['Overrides[0].Terminal', 'Overrides[1].PostalCode', 'TransitDays']);
  });

  test('a malformed body is a 400 naming the field', async () => {
    const res = await put({ Terminals: [{ ...two[0], Latitude: 200 }], Overrides: [] });
    await expectRefused(res, ['Terminals[0].Latitude']);
  });

  test('a misspelt name is a 400, not "left out" (TransitDay would derive the days from distance)', async () => {
    const res = await put({
      Terminals: two,
      TransitDay: [],
      Overrides: [{ PostalCode: '0150', Terminal: 'OSL', Reasn: 'x' }],
    });
    await expectRefused(res, ['Overrides[0].Reasn', 'Overrides[0].Reason', 'TransitDay']);
  });

  test('a replace reassigns every postal code and survives a restart', async () => {
    const res = await put({
      Terminals: two,
      Overrides: [{ PostalCode: '5003', Terminal: 'OSL', Reason: 'test' }],
    });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toMatchObject({ Terminals: 2, TransitDays: 4, Overrides: 1 });
    expect(await terminalOf('6001')).toBe('BGO');
    expect(await terminalOf('5003')).toBe('OSL');
    expect(await ctx.services.terminals.transitDays('OSL', 'BGO')).toBe(1);
    expect(await ctx.services.terminals.loadShipped()).toBe(false);
    expect(await terminalOf('9170')).toBe('BGO');
  });

  test('prices follow a replace through this process at once, as the postal codes do', async () => {
    const total = async (from: string, to: string) =>
      json<{ Total: number }>(
        await ctx.app.inject({
          url: `/v3/Calculate/?Customernr=1000&SenderZip=${from}&ReceiverZip=${to}&Weight=12&ProductCode=43`,
          headers: bearer(key),
        }),
      ).Total;
    expect((await put({ Terminals: two, Overrides: [] })).statusCode).toBe(200);
    const osloToBergen = await total('0150', '5003');
    const withinBergen = await total('5003', '5003');
    expect(osloToBergen).not.toBe(withinBergen);
    const served = await put({
      Terminals: two,
      Overrides: [{ PostalCode: '0150', Terminal: 'BGO', Reason: 'test' }],
    });
    expect(served.statusCode).toBe(200);
    expect(await terminalOf('0150')).toBe('BGO');
    // Priced from the terminal the lookup shows, not the one pricing had cached a moment before.
    expect(await total('0150', '5003')).toBe(withinBergen);
    expect((await put({ Terminals: two, Overrides: [] })).statusCode).toBe(200);
    expect(await total('0150', '5003')).toBe(osloToBergen);
  });
});

describe('PUT /admin/postal-codes assigns terminals too', () => {
  test('an imported register gets its terminals from the stored routing data at once', async () => {
    const code = (PostalCode: string, Latitude: number, Longitude: number) => ({
      PostalCode,
      Place: 'TEST',
      MunicipalityCode: '0301',
      Municipality: 'Oslo',
      CountyCode: '03',
      County: 'Oslo',
      Category: 'G',
      Latitude,
      Longitude,
    });
    const res = await ctx.app.inject({
      method: 'PUT',
      url: '/admin/postal-codes',
      headers: bearer(ADMIN_KEY),
      // Two codes for the whole country: the pickup points and overrides elsewhere go with the rest.
      payload: {
        PostalCodes: [code('0150', 59.91, 10.75), code('0002', 60.39, 5.32)],
        RetireDependents: true,
      },
    });
    expect(res.statusCode).toBe(200);
    expect(await terminalOf('0150')).toBe('OSL');
    expect(await terminalOf('0002')).toBe('BGO');
  });
});

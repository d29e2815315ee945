import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import { ensureSandbox } from './sandbox';

let ctx: TestContext;
const admin = bearer(ADMIN_KEY);

beforeAll(async () => {
  ctx = await buildTestApp();
});
afterAll(() => ctx.close());

describe('customers', () => {
  test('create gives a price-service id; a second create of the number is 409', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/customers',
      headers: admin,
      payload: {
        CustomerNr: '3001',
        Name: 'Fjord Frakt AS',
        OrgNr: '921000006',
        Agreement: { FreightDiscountPercent: 12.5 },
      },
    });
    expect(res.statusCode).toBe(201);
    const body = json(res);
    expect(body).toMatchObject({ CustomerNr: '3001', Name: 'Fjord Frakt AS', OrgNr: '921000006' });
    expect(body.PriceServiceId).toMatch(/^PS[0-9A-F]{16}$/);
    const again = await ctx.app.inject({
      method: 'POST',
      url: '/admin/customers',
      headers: admin,
      payload: { CustomerNr: '3001', Name: 'Other' },
    });
    expect(again.statusCode).toBe(409);
    expect(again.headers['content-type']).toMatch(/problem\+json/);
    const list = json<{ CustomerNr: string }[]>(
      await ctx.app.inject({ url: '/admin/customers', headers: admin }),
    );
    expect(list.map((c) => c.CustomerNr)).toContain('3001');
  });

  test('a customer number is a 32-bit whole number without leading zeros', async () => {
    for (const CustomerNr of ['0123', '9999999999', '2147483648']) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/admin/customers',
        headers: admin,
        payload: { CustomerNr, Name: 'Null AS' },
      });
      expect(res.statusCode, CustomerNr).toBe(400);
      expect(Object.keys(json<{ errors: object }>(res).errors)).toEqual(['CustomerNr']);
    }
  });

  test('a freight discount has at most 2 decimals: it is priced in whole basis points', async () => {
    const create = (CustomerNr: string, FreightDiscountPercent: number) =>
      ctx.app.inject({
        method: 'POST',
        url: '/admin/customers',
        headers: admin,
        payload: { CustomerNr, Name: 'Rabatt AS', Agreement: { FreightDiscountPercent } },
      });
    for (const [nr, percent] of [
      ['4101', 12.345],
      ['4102', 1.005],
    ] as const) {
      const res = await create(nr, percent);
      expect(res.statusCode, String(percent)).toBe(400);
      expect(Object.keys(json<{ errors: object }>(res).errors)).toEqual(['Agreement.FreightDiscountPercent']);
    }
    expect((await create('4103', 12.35)).statusCode).toBe(201);
  });
});

describe('what an invoice prints of a customer is checked, and can be corrected', () => {
  const customer = (method: 'POST' | 'PUT', url: string, payload: object) =>
    ctx.app.inject({ method, url, headers: admin, payload });
  const bad = {
    Name: '   ',
    OrgNr: '123456789',
    Address: { Zip: '0150', Country: 'ZZ' },
    Agreement: { SpecialUnitCodes: ['51', '51'] },
  };
  const fields = ['Address.Country', 'Agreement.SpecialUnitCodes', 'Name', 'OrgNr'];

  test('a blank name, an organisation number failing MOD11, an unknown country, a unit code twice: 400 naming each', async () => {
    const res = await customer('POST', '/admin/customers', { CustomerNr: '3101', ...bad });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(json<{ errors: object }>(res).errors).sort()).toEqual(fields);
    expect(
      json<{ CustomerNr: string }[]>(await ctx.app.inject({ url: '/admin/customers', headers: admin })).map(
        (c) => c.CustomerNr,
      ),
    ).not.toContain('3101');
  });

  test('PUT replaces name, number, address and agreement; pricing uses the new agreement at once', async () => {
    const created = json<{ PriceServiceId: string }>(
      await customer('POST', '/admin/customers', { CustomerNr: '3102', Name: 'Feil Navn AS' }),
    );
    const key = await ctx.keyFor({ customerNrs: ['3102'], scopes: ['price'] });
    const price = async () =>
      json<{ Total: string }>(
        await ctx.app.inject({
          url: '/v3/Calculate/?Customernr=3102&SenderZip=0150&ReceiverZip=5003&Weight=12&ProductCode=43',
          headers: bearer(key),
        }),
      ).Total;
    const before = await price();
    const corrected = await customer('PUT', '/admin/customers/3102', {
      Name: 'Riktig Navn AS',
      OrgNr: '974760673',
      Address: { Address: 'Bryggen 1', Zip: '5003', Place: 'BERGEN', Country: 'NO' },
      Agreement: { FreightDiscountPercent: 20 },
    });
    expect(corrected.statusCode, corrected.body).toBe(200);
    expect(json(corrected)).toMatchObject({
      CustomerNr: '3102',
      Name: 'Riktig Navn AS',
      OrgNr: '974760673',
      Agreement: { FreightDiscountPercent: 20 },
      PriceServiceId: created.PriceServiceId,
    });
    expect(Number(await price())).toBeLessThan(Number(before));
    // A misspelt name would clear the field it meant (a field left out is cleared): refused instead.
    const misspelt = await customer('PUT', '/admin/customers/3102', {
      Name: 'Riktig Navn AS',
      Agreement: { FreigthDiscountPercent: 25 },
    });
    expect(json<{ errors: object }>(misspelt).errors).toEqual({
      'Agreement.FreigthDiscountPercent': [
        'The FreigthDiscountPercent field is not one this request takes (a misspelt name?).',
      ],
    });
    expect(Number(await price())).toBeLessThan(Number(before)); // the 20 % agreement still stands
    const broken = await customer('PUT', '/admin/customers/3102', bad);
    expect(Object.keys(json<{ errors: object }>(broken).errors).sort()).toEqual(fields);
    expect((await customer('PUT', '/admin/customers/3999', { Name: 'Ingen AS' })).statusCode).toBe(404);
  });
});

describe('API keys', () => {
  test('create shows the key once; list never shows it; revoke makes it fail', async () => {
    await ctx.services.customers.create({ CustomerNr: '3002', Name: 'Key AS' });
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/api-keys',
      headers: admin,
      payload: { Name: 'Webshop', CustomerNrs: ['3002'], Scopes: ['booking', 'price'] },
    });
    expect(res.statusCode).toBe(201);
    const created = json<{ Id: string; Key: string; Scopes: string[]; CustomerNrs: string[] }>(res);
    expect(created.Key).toMatch(/^kolli_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ Scopes: ['booking', 'price'], CustomerNrs: ['3002'] });

    const list = await ctx.app.inject({ url: '/admin/api-keys', headers: admin });
    expect(list.body).not.toContain(created.Key);
    expect(json<{ Id: string }[]>(list).some((k) => k.Id === created.Id)).toBe(true);

    // Stored as a hash only.
    const rows = await ctx.services.auth.listKeys();
    expect(JSON.stringify(rows)).not.toContain(created.Key);

    expect(
      (await ctx.app.inject({ url: '/v1/customers/3002', headers: bearer(created.Key) })).statusCode,
    ).toBe(200);
    expect(
      (await ctx.app.inject({ method: 'DELETE', url: `/admin/api-keys/${created.Id}`, headers: admin }))
        .statusCode,
    ).toBe(204);
    expect(
      (await ctx.app.inject({ url: '/v1/customers/3002', headers: bearer(created.Key) })).statusCode,
    ).toBe(401);
    expect(
      (await ctx.app.inject({ method: 'DELETE', url: `/admin/api-keys/${created.Id}`, headers: admin }))
        .statusCode,
    ).toBe(404);
  });

  test('unknown customers and scopes are named in the 400', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/api-keys',
      headers: admin,
      payload: { Name: 'Bad', CustomerNrs: ['999999'], Scopes: ['booking'] },
    });
    expect(res.statusCode).toBe(400);
    expect(json(res).errors).toEqual({ 'CustomerNrs[0]': ['Customer number 999999 does not exist.'] });
    const badScope = await ctx.app.inject({
      method: 'POST',
      url: '/admin/api-keys',
      headers: admin,
      payload: { Name: 'Bad', CustomerNrs: [], Scopes: ['root'] },
    });
    expect(Object.keys(json(badScope).errors as object)).toEqual(['Scopes[0]']);
  });
});

describe('sandbox credentials', () => {
  test('created once on an empty database and written to the data directory', async () => {
    const fresh = await buildTestApp();
    try {
      const created = await ensureSandbox(fresh.services, fresh.config);
      expect(created).toMatchObject({
        CustomerNr: '1000',
        Scopes: ['booking', 'price', 'invoice', 'shipments', 'webhooks', 'labels'],
      });
      const file = JSON.parse(readFileSync(join(fresh.config.dataDir, 'sandbox-credentials.json'), 'utf8'));
      expect(file).toEqual(created);
      const res = await fresh.app.inject({ url: '/v1/customers/1000', headers: bearer(file.Key) });
      expect(json(res).PriceServiceId).toBe(file.PriceServiceId);
      expect(await ensureSandbox(fresh.services, fresh.config)).toBeNull();
    } finally {
      await fresh.close();
    }
  });

  test('not created in production', async () => {
    const prod = await buildTestApp({ env: { NODE_ENV: 'production' } });
    try {
      expect(await ensureSandbox(prod.services, prod.config)).toBeNull();
      expect(await prod.services.customers.list()).toEqual([]);
    } finally {
      await prod.close();
    }
  });
});

describe('timestamps', () => {
  const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
  /** Oslo local time of an instant, as CONTRACT §2 writes it. */
  const oslo = (d: Date) => d.toLocaleString('sv-SE', { timeZone: 'Europe/Oslo' }).replace(' ', 'T');

  test('CreatedAt and RevokedAt are Oslo local time in the §2 form (YYYY-MM-DDTHH:mm:ss)', async () => {
    const before = Date.now();
    const customer = await ctx.app.inject({
      method: 'POST',
      url: '/admin/customers',
      headers: admin,
      payload: { CustomerNr: '3901', Name: 'Tidsstempel AS' },
    });
    const created = json<{ CreatedAt: string }>(customer).CreatedAt;
    expect(created).toMatch(LOCAL);
    // Within the seconds around the request, in Oslo's wall clock.
    const window = [oslo(new Date(before - 2000)), oslo(new Date(Date.now() + 2000))];
    expect(created >= (window[0] ?? '') && created <= (window[1] ?? '')).toBe(true);

    const key = await ctx.app.inject({
      method: 'POST',
      url: '/admin/api-keys',
      headers: admin,
      payload: { Name: 'stamps', CustomerNrs: ['3901'], Scopes: ['price'] },
    });
    const { Id, CreatedAt } = json<{ Id: string; CreatedAt: string }>(key);
    expect(CreatedAt).toMatch(LOCAL);
    await ctx.app.inject({ method: 'DELETE', url: `/admin/api-keys/${Id}`, headers: admin });

    const customers = json<{ CreatedAt: string }[]>(
      await ctx.app.inject({ url: '/admin/customers', headers: admin }),
    );
    const keys = json<{ Id: string; CreatedAt: string; RevokedAt: string | null }[]>(
      await ctx.app.inject({ url: '/admin/api-keys', headers: admin }),
    );
    for (const c of customers) expect(c.CreatedAt).toMatch(LOCAL);
    for (const k of keys) expect(k.CreatedAt).toMatch(LOCAL);
    expect(keys.find((k) => k.Id === Id)?.RevokedAt).toMatch(LOCAL);
  });
});

describe('the admin lists, a page at a time', () => {
  /** Every page from `url` on, following `Link: <…>; rel="next"`; the ids of each page. */
  async function follow(url: string, idOf: (row: Record<string, string>) => string) {
    const pages: string[][] = [];
    let next: string | undefined = url;
    while (next) {
      const res: Awaited<ReturnType<typeof ctx.app.inject>> = await ctx.app.inject({
        url: next,
        headers: admin,
      });
      expect(res.statusCode, res.body).toBe(200);
      pages.push(json<Record<string, string>[]>(res).map(idOf));
      next = /^<([^>]+)>; rel="next"$/.exec(String(res.headers.link ?? ''))?.[1];
    }
    return pages;
  }

  test('customers by number and keys newest first, pages chained by their Link header', async () => {
    for (const nr of ['6101', '6102', '6103', '6104', '6105']) {
      await ctx.services.customers.create({ CustomerNr: nr, Name: `Side ${nr} AS` });
      await ctx.services.auth.createKey({ name: `key ${nr}`, customerNrs: [nr], scopes: ['price'] });
    }
    const whole = json<{ CustomerNr: string }[]>(
      await ctx.app.inject({ url: '/admin/customers?Limit=1000', headers: admin }),
    ).map((c) => c.CustomerNr);
    expect(whole).toEqual([...whole].sort());
    const pages = await follow('/admin/customers?Limit=2', (c) => c.CustomerNr ?? '');
    expect(pages.flat()).toEqual(whole);
    expect(pages.slice(0, -1).every((p) => p.length === 2)).toBe(true);

    const keys = json<{ Id: string; CreatedAt: string }[]>(
      await ctx.app.inject({ url: '/admin/api-keys?Limit=1000', headers: admin }),
    );
    expect(keys.map((k) => k.CreatedAt)).toEqual(
      keys
        .map((k) => k.CreatedAt)
        .sort()
        .reverse(),
    );
    expect((await follow('/admin/api-keys?Limit=3', (k) => k.Id ?? '')).flat()).toEqual(
      keys.map((k) => k.Id),
    );
  });

  test('the Link of a page asked in another spelling leads on (names bind in any case)', async () => {
    for (const nr of ['6201', '6202', '6203']) {
      await ctx.services.customers.create({ CustomerNr: nr, Name: `Stavemåte ${nr} AS` });
      await ctx.services.auth.createKey({ name: `key ${nr}`, customerNrs: [nr], scopes: ['price'] });
    }
    const whole = json<{ CustomerNr: string }[]>(
      await ctx.app.inject({ url: '/admin/customers?Limit=1000', headers: admin }),
    ).map((c) => c.CustomerNr);
    expect(whole.length).toBeGreaterThan(2);
    const after = whole[0] ?? '';
    for (const url of ['/admin/customers?limit=2', `/admin/customers?LIMIT=2&after=${after}`]) {
      const pages = await follow(url, (c) => c.CustomerNr ?? '');
      expect(pages.flat(), url).toEqual(url.includes('after') ? whole.slice(1) : whole);
    }
    const keys = json<{ Id: string }[]>(
      await ctx.app.inject({ url: '/admin/api-keys?Limit=1000', headers: admin }),
    );
    expect((await follow('/admin/api-keys?limit%5B0%5D=2', (k) => k.Id ?? '')).flat()).toEqual(
      keys.map((k) => k.Id),
    );
  });

  test('a page of at most 1 000, 100 by default; an After that names no key is a 400', async () => {
    const many = await ctx.app.inject({ url: '/admin/customers?Limit=1001', headers: admin });
    expect(many.statusCode).toBe(400);
    expect(Object.keys(json<{ errors: object }>(many).errors)).toEqual(['Limit']);
    const unknown = await ctx.app.inject({ url: '/admin/api-keys?After=key_nobody', headers: admin });
    expect(unknown.statusCode).toBe(400);
    expect(json<{ errors: object }>(unknown).errors).toEqual({ After: ['No API key key_nobody.'] });
    for (let i = 0; i < 101; i++) {
      await ctx.services.customers.create({ CustomerNr: String(5000 + i), Name: `Mange ${i} AS` });
    }
    const first = await ctx.app.inject({ url: '/admin/customers', headers: admin });
    expect(json<unknown[]>(first)).toHaveLength(100);
    expect(first.headers.link).toMatch(/^<\/admin\/customers\?Limit=100&After=\d+>; rel="next"$/);
  });
});

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_KEY, bearer, buildTestApp, json, logCapture, type TestContext } from '../../test/helpers';
import type { RequestLogPage } from './service';
import { createRequestLogStore } from './store';

const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const HEADER_SECRET = 'hdr-secret-4711-abcdef';

let ctx: TestContext;
let key1000: string;
let key2000: string;
let keyBoth: string;

const log = async (key: string, query = '') => {
  const res = await ctx.app.inject({ url: `/v1/RequestLog${query}`, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return json<RequestLogPage>(res);
};

const storedText = async () => {
  const rows = await ctx.database.db.execute(sql`select row_to_json(r)::text as t from request_log r`);
  return (rows as unknown as { rows: { t: string }[] }).rows.map((r) => r.t).join('\n');
};

beforeAll(async () => {
  ctx = await buildTestApp({ env: { KOLLI_WEBHOOK_ALLOW_PRIVATE: '1' } });
  key1000 = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['webhooks', 'price', 'shipments'] });
  key2000 = await ctx.keyFor({ customerNrs: ['2000'], scopes: ['webhooks', 'price', 'shipments'] });
  keyBoth = await ctx.keyFor({ customerNrs: ['1000', '2000'], scopes: ['webhooks', 'price', 'shipments'] });
});
afterAll(() => ctx.close());

describe('recording and redaction', () => {
  test('secrets, tokens and key values never reach the table', async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/v1/Webhooks',
      headers: bearer(key1000),
      payload: {
        eventValue: '1000',
        eventValueType: 3,
        url: 'http://127.0.0.1:9/hook',
        secret: WEBHOOK_SECRET,
        customHeaders: JSON.stringify({ 'X-Api-Key': HEADER_SECRET }),
      },
    });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.body).toContain(WEBHOOK_SECRET); // the answer has it; the log must not
    // The key's own value in a query parameter and in a body field with an innocent name.
    await ctx.app.inject({ url: `/v1/shipment/list?access_token=${key1000}&x=1`, headers: bearer(key1000) });
    await ctx.app.inject({
      method: 'POST',
      url: '/v2/PriceCalculator',
      headers: bearer(key1000),
      payload: { Comment: `my key is ${key1000}`, note: `Bearer ${key2000}` },
    });

    const page = await log(key1000);
    expect(page.Enabled).toBe(true);
    expect(page.Entries.map((e) => e.Method)).toEqual(['POST', 'GET', 'POST']);
    const text = await storedText();
    for (const secret of [WEBHOOK_SECRET, HEADER_SECRET, key1000, key2000])
      expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
    const hook = page.Entries[2];
    expect(hook?.Path).toBe('/v1/Webhooks');
    expect(hook?.Status).toBe(200);
    expect(JSON.parse(hook?.RequestBody ?? '{}')).toMatchObject({
      secret: '[redacted]',
      url: 'http://127.0.0.1:9/hook',
    });
    expect(JSON.parse(hook?.ResponseBody ?? '{}')).toMatchObject({
      secret: '[redacted]',
      eventValue: '1000',
    });
    expect(page.Entries[1]?.Path).toContain('access_token=%5Bredacted%5D');
    expect(page.Entries[0]?.RequestId).toMatch(/.+/);
    expect(page.Entries[0]?.DurationMs).toBeGreaterThanOrEqual(0);
  });

  test('bodies are capped in size', async () => {
    const long = 'x'.repeat(40_000);
    await ctx.app.inject({
      method: 'POST',
      url: '/v2/PriceCalculator',
      headers: bearer(key2000),
      payload: { Comment: long },
    });
    const [entry] = (await log(key2000, '?Path=PriceCalculator')).Entries;
    expect(entry?.RequestBody?.length).toBeLessThan(ctx.config.requestLogBodyBytes + 100);
    expect(entry?.RequestBody).toContain('truncated');
  });

  test('a Before beyond any id is a 400 naming it, not a database error', async () => {
    const res = await ctx.app.inject({ url: '/v1/RequestLog?Before=2.9e257', headers: bearer(ADMIN_KEY) });
    expect(res.statusCode, res.body).toBe(400);
    expect(Object.keys(json<{ errors: Record<string, string[]> }>(res).errors)).toEqual(['Before']);
  });

  test('reading the log is not itself logged, and unauthenticated requests are not logged', async () => {
    const refused = await ctx.app.inject({ url: '/v1/shipment/list', headers: bearer('not-a-key') });
    expect(refused.statusCode).toBe(401);
    const page = await log(ADMIN_KEY, '?Path=RequestLog');
    expect(page.Entries).toEqual([]);
    expect((await log(ADMIN_KEY, '?Status=401')).Entries).toEqual([]);
  });
});

describe('tenancy', () => {
  test("a customer sees its own requests, never another customer's", async () => {
    await ctx.app.inject({ url: '/v1/Shipment/70123456789012345/events', headers: bearer(keyBoth) });
    const of1000 = await log(key1000);
    const of2000 = await log(key2000);
    expect(of1000.Entries.length).toBeGreaterThan(0);
    expect(of2000.Entries.length).toBeGreaterThan(0);
    const ids1000 = new Set(of1000.Entries.map((e) => e.Id));
    expect(of2000.Entries.some((e) => ids1000.has(e.Id))).toBe(false);
    // A key for 1000 and 2000 sees both; 1000's key does not see that key's requests (they may be 2000's).
    const both = await log(keyBoth);
    expect(both.Entries.length).toBe(of1000.Entries.length + of2000.Entries.length + 1);
    expect(of1000.Entries.some((e) => e.Path.includes('/events'))).toBe(false);
    // The administrator sees everything.
    expect((await log(ADMIN_KEY)).Entries.length).toBe(both.Entries.length);
  });

  test('another key of the customer sees a request only when it holds every scope of the key that made it', async () => {
    const priceOnly = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['price'] });
    const path = '/v1/Shipment/70900010000000018/events';
    await ctx.app.inject({ url: path, headers: bearer(key1000) });
    await ctx.app.inject({ url: path, headers: bearer(priceOnly) }); // 403: its own, it sees it
    const seen = await log(priceOnly);
    expect(seen.Entries.map((e) => [e.Path, e.Status])).toEqual([[path, 403]]);
    // The key that made the others, holding every scope of the price-only key, sees that one too.
    expect((await log(key1000)).Entries.some((e) => e.Status === 403 && e.Path === path)).toBe(true);
  });
});

describe('filters and paging', () => {
  test('by status, status class, path and method; newest first; pages by Before', async () => {
    const all = await log(key1000);
    // Times in the §2 form, Oslo local time (CONTRACT §2).
    expect(all.Entries.every((e) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(e.Time))).toBe(true);
    const ids = all.Entries.map((e) => e.Id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));

    const failed = await log(key1000, '?Status=4xx');
    expect(failed.Entries.length).toBeGreaterThan(0);
    expect(failed.Entries.every((e) => e.Status >= 400 && e.Status < 500)).toBe(true);
    const exact = await log(key1000, '?Status=200&Path=webhooks');
    expect(exact.Entries.map((e) => e.Path)).toEqual(['/v1/Webhooks']);
    const hooks = await log(key1000, '?Path=webhooks&Method=post');
    expect(hooks.Entries.map((e) => e.Path)).toEqual(['/v1/Webhooks']);

    const first = await log(key1000, '?Limit=1');
    expect(first.Entries.map((e) => e.Id)).toEqual([ids[0]]);
    expect(first.NextBefore).toBe(ids[0]);
    const second = await log(key1000, `?Limit=1&Before=${first.NextBefore}`);
    expect(second.Entries.map((e) => e.Id)).toEqual([ids[1]]);
    expect((await log(key1000, `?Limit=200`)).NextBefore).toBeNull();
  });

  test('a bad filter is a 400 naming it', async () => {
    const res = await ctx.app.inject({ url: '/v1/RequestLog?Status=abc', headers: bearer(key1000) });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Status');
  });
});

describe('retention', () => {
  test('pruning removes rows past their age and beyond the count per key', async () => {
    let now = new Date('2026-03-01T12:00:00Z');
    const app = await buildTestApp({
      env: { KOLLI_REQUEST_LOG_MAX_PER_KEY: '3', KOLLI_REQUEST_LOG_RETENTION_HOURS: '24' },
      clock: () => now,
    });
    try {
      const capture = (at: Date, keyId: string, url: string) =>
        app.services.requestLog.record({
          at,
          keyId,
          customerNrs: ['1000'],
          scopes: ['booking'],
          credential: undefined,
          method: 'GET',
          url,
          status: 200,
          durationMs: 1,
          requestId: url,
          requestContentType: undefined,
          requestBody: undefined,
          responseContentType: 'application/json',
          responseBody: '{}',
        });
      capture(new Date('2026-02-27T12:00:00Z'), 'k1', '/old');
      for (let i = 1; i <= 5; i++) capture(new Date(`2026-03-01T11:0${i}:00Z`), 'k1', `/new/${i}`);
      capture(new Date('2026-03-01T11:30:00Z'), 'k2', '/other');
      await app.services.requestLog.flush();
      expect(await app.services.requestLog.prune()).toEqual({ aged: 1, beyond: 2 });
      const page = await app.services.requestLog.list(
        { keyId: 'admin', name: 'a', scopes: new Set(['admin']), customerNrs: new Set() },
        {},
      );
      expect(page.Entries.map((e) => e.Path)).toEqual(['/other', '/new/5', '/new/4', '/new/3']);
      now = new Date('2026-03-02T11:20:00Z');
      expect(await app.services.requestLog.prune()).toEqual({ aged: 3, beyond: 0 });

      // Several keys, their rows interleaved: each keeps exactly its own newest three.
      const made: Record<string, string[]> = { a: [], k1: [], zz: [] };
      const counts: Record<string, number> = { a: 6, k1: 3, zz: 5 };
      for (let i = 0; i < 6; i++) {
        for (const key of Object.keys(made)) {
          if (i >= (counts[key] ?? 0)) continue;
          const url = `/${key}/${i}`;
          made[key]?.push(url);
          capture(new Date(now.getTime() - 60_000 + i * 1000), key, url);
        }
      }
      await app.services.requestLog.flush();
      expect(await app.services.requestLog.prune()).toEqual({ aged: 0, beyond: 3 + 0 + 2 });
      const left = await app.services.requestLog.list(
        { keyId: 'admin', name: 'a', scopes: new Set(['admin']), customerNrs: new Set() },
        {},
      );
      for (const [key, urls] of Object.entries(made)) {
        const kept = left.Entries.map((e) => e.Path).filter((p) => p.startsWith(`/${key}/`));
        expect(kept).toEqual(urls.slice(-3).reverse());
      }
      expect(await app.services.requestLog.prune()).toEqual({ aged: 0, beyond: 0 });

      // A backlog larger than a batch goes in several statements, all of it in one prune.
      for (let i = 0; i < 7; i++) capture(new Date(now.getTime() - 8 * 86_400_000), `old${i}`, `/aged/${i}`);
      for (let i = 0; i < 9; i++) capture(new Date(now.getTime() - 50_000 + i * 1000), 'zz', `/more/${i}`);
      await app.services.requestLog.flush();
      expect(await app.services.requestLog.prune(undefined, 2)).toEqual({ aged: 7, beyond: 9 });
      const after = await app.services.requestLog.list(
        { keyId: 'admin', name: 'a', scopes: new Set(['admin']), customerNrs: new Set() },
        {},
      );
      expect(
        after.Entries.filter((e) => e.Path.startsWith('/zz/') || e.Path.startsWith('/more/')).map(
          (e) => e.Path,
        ),
      ).toEqual(['/more/8', '/more/7', '/more/6']);
    } finally {
      await app.close();
    }
  });
});

describe('settings and failures', () => {
  test('off by configuration: nothing recorded, and the read says so', async () => {
    const app = await buildTestApp({ env: { KOLLI_REQUEST_LOG: '0' } });
    try {
      const key = await app.keyFor({ customerNrs: ['1000'], scopes: ['shipments'] });
      await app.app.inject({ url: '/v1/shipment/list', headers: bearer(key) });
      const res = await app.app.inject({ url: '/v1/RequestLog', headers: bearer(key) });
      expect(json<RequestLogPage>(res)).toEqual({ Enabled: false, Entries: [], NextBefore: null });
      const rows = await app.database.db.execute(sql`select count(*)::int as n from request_log`);
      expect((rows as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(0);
    } finally {
      await app.close();
    }
  });

  test('text PostgreSQL cannot store (NUL, a lone surrogate) is replaced, and its batch still written', async () => {
    const { requestLog } = ctx.services;
    const captured = (requestId: string, requestBody: string) => ({
      at: new Date(),
      keyId: 'key_unstorable',
      customerNrs: ['1000'],
      scopes: ['booking'],
      credential: undefined,
      method: 'POST',
      url: '/v1/unstorable',
      status: 415,
      durationMs: 1.5,
      requestId,
      requestContentType: 'text/plain',
      requestBody,
      responseContentType: undefined,
      responseBody: undefined,
    });
    requestLog.record(captured('plain', 'nothing odd'));
    requestLog.record(captured('odd', 'a\u0000b\ud800c'));
    await requestLog.flush();
    const rows = await ctx.database.db.execute(
      sql`select request_id, request_body from request_log where key_id = 'key_unstorable' order by id`,
    );
    expect((rows as unknown as { rows: unknown[] }).rows).toEqual([
      { request_id: 'plain', request_body: 'nothing odd' },
      { request_id: 'odd', request_body: 'a\uFFFDb\uFFFDc' },
    ]);
  });

  test('a log that cannot be written never fails the request', async () => {
    const serverLog = logCapture();
    const app = await buildTestApp({ env: { LOG_LEVEL: 'error' }, logStream: serverLog.stream });
    try {
      const key = await app.keyFor({ customerNrs: ['1000'], scopes: ['webhooks'] });
      await app.database.db.execute(sql`drop table request_log`);
      const res = await app.app.inject({ url: '/v1/Webhooks', headers: bearer(key) });
      expect(res.statusCode).toBe(200);
      await expect(app.services.requestLog.flush()).resolves.toBeUndefined();
      // The batch was tried, failed, and said so in the server's log.
      expect(serverLog.text()).toContain('request log batch not written');
    } finally {
      await app.close();
    }
  });
});

test('a key’s own rows and its customer’s other keys’ rows come once each, newest first, a page at a time', async () => {
  // The two are read apart (each by its own index) and merged: a row of the key's own that is also
  // one of its customer's must not come twice.
  await ctx.database.db.execute(sql`
    insert into request_log (at, key_id, customer_nrs, scopes, method, url, status, duration_ms, request_id)
    select now(), case when g % 2 = 0 then 'key_7777_a' else 'key_7777_b' end, array['7777'],
           array['booking'], 'GET', '/v1/postalcodes/0150', 200, 1, 'r7777-' || g
    from generate_series(1, 30) g`);
  const store = createRequestLogStore(ctx.database.db);
  const visibleTo = { keyId: 'key_7777_a', customerNrs: ['7777'], scopes: ['booking'] };
  const first = await store.list({ visibleTo, limit: 20 });
  const rest = await store.list({ visibleTo, limit: 20, before: first.at(-1)?.id ?? 0 });
  const ids = [...first, ...rest].map((r) => r.id);
  expect(ids).toHaveLength(30);
  expect(new Set(ids).size).toBe(30);
  expect(ids).toEqual([...ids].sort((a, b) => b - a));
});

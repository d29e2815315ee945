import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';

/** Micro-caching of the price GETs (answer-cache.ts): what is replayed, for whom, and for how long. */

const PRICE = '/v3/Calculate/?Customernr=1000&SenderZip=0150&ReceiverZip=5003&Weight=25&ProductCode=43';

describe('with a long lifetime', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await buildTestApp({ env: { KOLLI_ANSWER_CACHE_MS: '10000' } });
  });
  afterAll(() => ctx.close());

  const quotes = () => vi.spyOn(ctx.services.pricing, 'quote');

  test('a repeat of the same GET by the same key is a replay of the same answer', async () => {
    const key = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['price'] });
    const spy = quotes();
    const first = await ctx.app.inject({ url: PRICE, headers: bearer(key) });
    const again = await ctx.app.inject({ url: PRICE, headers: bearer(key) });
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers['x-content-type-options']).toBe('nosniff');
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });

  test('another key, another URL or a failed answer is priced afresh', async () => {
    const a = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['price'] });
    const b = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['price'] });
    await ctx.app.inject({ url: PRICE, headers: bearer(a) });
    const spy = quotes();
    await ctx.app.inject({ url: PRICE, headers: bearer(b) });
    await ctx.app.inject({ url: `${PRICE}&Services=16`, headers: bearer(a) });
    const unknownZip = PRICE.replace('5003', '0000');
    expect((await ctx.app.inject({ url: unknownZip, headers: bearer(a) })).statusCode).toBe(400);
    expect((await ctx.app.inject({ url: unknownZip, headers: bearer(a) })).statusCode).toBe(400);
    expect(spy).toHaveBeenCalledTimes(4);
    spy.mockRestore();
  });

  test('a key that may not act for the customer is refused every time, never replayed', async () => {
    const stranger = await ctx.keyFor({ customerNrs: ['4000'], scopes: ['price'] });
    for (let i = 0; i < 2; i++) {
      expect((await ctx.app.inject({ url: PRICE, headers: bearer(stranger) })).statusCode).toBe(403);
    }
  });

  test('a write under /admin clears it: a new tariff prices at once', async () => {
    const key = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['price'] });
    const before = json<{ Total: number }>(await ctx.app.inject({ url: PRICE, headers: bearer(key) }));
    const tariff = json<Record<string, unknown> & { EnergyPercent: string }>(
      await ctx.app.inject({ url: '/admin/tariffs/2026-01-01', headers: bearer(ADMIN_KEY) }),
    );
    const put = await ctx.app.inject({
      method: 'PUT',
      url: '/admin/tariffs',
      headers: bearer(ADMIN_KEY),
      payload: { ...tariff, EnergyPercent: '50.00' },
    });
    expect(put.statusCode).toBe(200);
    const after = json<{ Total: number }>(await ctx.app.inject({ url: PRICE, headers: bearer(key) }));
    expect(after.Total).toBeGreaterThan(before.Total);
  });
});

describe('with a short lifetime', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await buildTestApp({ env: { KOLLI_ANSWER_CACHE_MS: '1000', KOLLI_RATE_LIMIT_PER_MINUTE: '4' } });
  });
  afterAll(() => ctx.close());

  test('an answer is replayed for its lifetime and no longer, however often it is asked', async () => {
    const key = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['price'] });
    const spy = vi.spyOn(ctx.services.pricing, 'quote');
    await ctx.app.inject({ url: PRICE, headers: bearer(key) });
    // Wide margins: the replay comes 800 ms before the end of the lifetime even on a loaded machine;
    // the last request comes 1 100 ms after the first, 100 ms before a renewed entry would end.
    await sleep(200);
    await ctx.app.inject({ url: PRICE, headers: bearer(key) }); // a replay, which must not renew it
    expect(spy).toHaveBeenCalledTimes(1);
    await sleep(900);
    await ctx.app.inject({ url: PRICE, headers: bearer(key) });
    expect(spy).toHaveBeenCalledTimes(2);
    spy.mockRestore();
  });

  test('replays count against the rate limit', async () => {
    const key = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['price'] });
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) {
      codes.push((await ctx.app.inject({ url: PRICE, headers: bearer(key) })).statusCode);
    }
    expect(codes).toEqual([200, 200, 200, 200, 429]);
  });
});

test('KOLLI_ANSWER_CACHE_MS=0 turns it off', async () => {
  const ctx = await buildTestApp({ env: { KOLLI_ANSWER_CACHE_MS: '0' } });
  try {
    const key = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['price'] });
    const spy = vi.spyOn(ctx.services.pricing, 'quote');
    await ctx.app.inject({ url: PRICE, headers: bearer(key) });
    await ctx.app.inject({ url: PRICE, headers: bearer(key) });
    expect(spy).toHaveBeenCalledTimes(2);
  } finally {
    await ctx.close();
  }
});

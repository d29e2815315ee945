import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osloBergenBooking } from '../../test/factories';
import { ADMIN_KEY, bearer, buildTestApp, type TestContext } from '../../test/helpers';

// Issue 20: domain metrics on /metrics, and /metrics guarded in production.

const value = (text: string, series: string): number => {
  const escaped = series.replace(/[{}+.()[\]"]/g, '\\$&');
  const m = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
};

describe('in the sandbox', () => {
  let now = new Date('2026-11-23T09:00:00Z');
  let ctx: TestContext;
  let key: string;
  const scrape = async () => (await ctx.app.inject({ url: '/metrics' })).body;

  beforeAll(async () => {
    ctx = await buildTestApp({ clock: () => now });
    key = await ctx.keyFor({ scopes: ['booking', 'price'] });
  });
  afterAll(() => ctx.close());

  test('bookings by status', async () => {
    const before = await scrape();
    for (const ShipmentStatus of ['Published', 'Draft', 'Published']) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/Shipment/Update',
        headers: bearer(key),
        payload: osloBergenBooking({ ShipmentStatus }),
      });
      expect(res.statusCode).toBe(201);
    }
    const after = await scrape();
    const published = 'kolli_bookings_total{status="Published"}';
    const draft = 'kolli_bookings_total{status="Draft"}';
    expect(value(after, published) - value(before, published)).toBe(2);
    expect(value(after, draft) - value(before, draft)).toBe(1);
  });

  test('price requests by operation and status', async () => {
    const series = 'kolli_price_requests_total{operation="getPriceV3",status_code="200"}';
    const bad = 'kolli_price_requests_total{operation="getPriceV3",status_code="400"}';
    const before = await scrape();
    const q = 'Customernr=1000&SenderZip=0154&ReceiverZip=5003&Weight=10&ProductCode=43';
    expect((await ctx.app.inject({ url: `/v3/Calculate/?${q}`, headers: bearer(key) })).statusCode).toBe(200);
    expect((await ctx.app.inject({ url: '/v3/Calculate/?Weight=x', headers: bearer(key) })).statusCode).toBe(
      400,
    );
    const after = await scrape();
    expect(value(after, series) - value(before, series)).toBe(1);
    expect(value(after, bad) - value(before, bad)).toBe(1);
  });

  test('the outbox backlog and the age of its oldest row; webhook deliveries by outcome', async () => {
    // Bookings emitted events; no fan-out runs in this app, so they wait in the outbox.
    now = new Date();
    const text = await scrape();
    expect(value(text, 'kolli_outbox_backlog')).toBeGreaterThanOrEqual(3);
    expect(value(text, 'kolli_outbox_oldest_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(text).toMatch(/^kolli_outbox_oldest_age_seconds \d/m);
    for (const outcome of ['pending', 'succeeded', 'failed']) {
      expect(text).toContain(`kolli_webhook_deliveries{outcome="${outcome}"} 0`);
    }
  });

  test('invoicing run durations', async () => {
    const series = 'kolli_invoicing_run_duration_seconds_count{kind="run",outcome="ok"}';
    const before = await scrape();
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/invoicing/runs',
      headers: bearer(ADMIN_KEY),
      payload: { ToDate: '2026-11-20' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const after = await scrape();
    expect(value(after, series) - value(before, series)).toBe(1);
    expect(after).toContain('# TYPE kolli_invoicing_run_duration_seconds histogram');
  });
});

describe('in production', () => {
  test('without METRICS_PORT, /metrics answers an admin key only', async () => {
    const ctx = await buildTestApp({ env: { NODE_ENV: 'production' } });
    try {
      const customer = await ctx.keyFor({ scopes: ['booking'] });
      expect((await ctx.app.inject({ url: '/metrics' })).statusCode).toBe(401);
      expect((await ctx.app.inject({ url: '/metrics', headers: bearer(customer) })).statusCode).toBe(403);
      const admin = await ctx.app.inject({ url: '/metrics', headers: bearer(ADMIN_KEY) });
      expect(admin.statusCode).toBe(200);
      expect(admin.body).toContain('kolli_bookings_total');
    } finally {
      await ctx.close();
    }
  });

  test('with METRICS_PORT, /metrics is served on that port only', async () => {
    const ctx = await buildTestApp({ env: { NODE_ENV: 'production', METRICS_PORT: '0' } });
    try {
      expect((await ctx.app.inject({ url: '/metrics', headers: bearer(ADMIN_KEY) })).statusCode).toBe(404);
      await ctx.app.listen({ port: 0, host: '127.0.0.1' });
      // Its own listen resolves METRICS_HOST first, after the API's has returned.
      const server = ctx.app.metricsServer;
      if (server && !server.listening) await once(server, 'listening');
      const port = (server?.address() as AddressInfo | undefined)?.port;
      expect(port).toBeGreaterThan(0);
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('kolli_outbox_backlog');
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    } finally {
      await ctx.close();
    }
  });
});

test('a closed app is not kept alive by the process’s metrics collectors', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const built = async () => {
    const ctx = await buildTestApp();
    await ctx.app.inject({ method: 'GET', url: '/healthz' });
    const ref = new WeakRef(ctx.app);
    await ctx.close();
    return ref;
  };
  const ref = await built();
  for (let i = 0; i < 10 && ref.deref(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    gc();
  }
  expect(ref.deref()).toBeUndefined();
});

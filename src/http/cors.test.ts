import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestContext } from '../../test/helpers';

// Issue 20: CORS from KOLLI_CORS_ORIGINS; none by default in production, any in the sandbox.

const preflight = (ctx: TestContext, origin: string) =>
  ctx.app.inject({
    method: 'OPTIONS',
    url: '/Shipment/Update',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,idempotency-key,if-match',
    },
  });

describe('in the sandbox (no KOLLI_CORS_ORIGINS)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await buildTestApp();
  });
  afterAll(() => ctx.close());

  test('a preflight from any origin is answered with the API’s methods and headers, without credentials', async () => {
    const res = await preflight(ctx, 'https://shop.example');
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const methods = String(res.headers['access-control-allow-methods']);
    for (const m of ['GET', 'POST', 'PUT', 'DELETE']) expect(methods).toContain(m);
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase();
    for (const h of ['authorization', 'content-type', 'idempotency-key', 'if-match', 'if-none-match']) {
      expect(allowed).toContain(h);
    }
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  test('an OPTIONS that is no preflight gets the methods too, not a 400', async () => {
    const res = await ctx.app.inject({ method: 'OPTIONS', url: '/Shipment/Update' });
    expect(res.statusCode).toBe(204);
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST');
  });

  test('an answer exposes ETag, Location and Retry-After to the script', async () => {
    const res = await ctx.app.inject({ url: '/healthz', headers: { origin: 'https://shop.example' } });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const exposed = String(res.headers['access-control-expose-headers']).toLowerCase();
    for (const h of ['etag', 'location', 'retry-after', 'x-request-id']) expect(exposed).toContain(h);
  });
});

describe('in production', () => {
  test('no origin is admitted by default', async () => {
    const ctx = await buildTestApp({ env: { NODE_ENV: 'production' } });
    try {
      const res = await preflight(ctx, 'https://shop.example');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(ctx.config.corsOrigins).toEqual([]);
    } finally {
      await ctx.close();
    }
  });

  test('the listed origins are admitted, others are not', async () => {
    const ctx = await buildTestApp({
      env: { NODE_ENV: 'production', KOLLI_CORS_ORIGINS: 'https://shop.example, https://erp.example/' },
    });
    try {
      const ok = await preflight(ctx, 'https://erp.example');
      expect(ok.statusCode).toBe(204);
      expect(ok.headers['access-control-allow-origin']).toBe('https://erp.example');
      expect(ok.headers.vary).toMatch(/origin/i);
      const other = await preflight(ctx, 'https://evil.example');
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await ctx.close();
    }
  });
});

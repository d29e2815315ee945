import { afterAll, beforeAll, expect, test } from 'vitest';
import { bearer, buildTestApp, logCapture, type TestContext } from '../../test/helpers';

// One access line per answered request (http/logging.ts), at info level: what was asked, what was
// answered and how long it took, under the request id the answer carries.

let ctx: TestContext;
const log = logCapture();
const lines = () =>
  log
    .text()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  ctx = await buildTestApp({
    env: { LOG_LEVEL: 'info' },
    logStream: log.stream,
  });
});
afterAll(() => ctx.close());

test('an answered request is logged once, with its method, path, status, time and request id', async () => {
  const key = await ctx.keyFor({ scopes: ['price'] });
  const res = await ctx.app.inject({
    method: 'GET',
    url: '/v3/Calculate/?Customernr=1000&SenderZip=0150&ReceiverZip=5003&Weight=2&ProductCode=43',
    headers: { ...bearer(key), 'x-request-id': 'access-log-test-1' },
  });
  const mine = lines().filter((l) => l.reqId === 'access-log-test-1');
  expect(mine).toHaveLength(1);
  expect(mine[0]).toMatchObject({
    msg: 'request completed',
    req: { method: 'GET', url: expect.stringContaining('/v3/Calculate/?Customernr=1000') },
    res: { statusCode: res.statusCode },
  });
  expect(mine[0]?.responseTime).toEqual(expect.any(Number));
  expect(log.text()).not.toContain('incoming request');
  expect(log.text()).not.toContain(key);
});

test('a secret sent in the URL is not logged: its parameter is kept, its value redacted', async () => {
  // Once the raw URL: `?access_token=<key>` put a customer's key in the log.
  const key = await ctx.keyFor({ scopes: ['price'] });
  await ctx.app.inject({
    url: `/v1/products?access_token=${key}&ProductCode=43&client_secret=${key}&Api-Key=${key}`,
    headers: { 'x-request-id': 'access-log-secret-1' },
  });
  const mine = lines().find((l) => l.reqId === 'access-log-secret-1');
  expect((mine?.req as { url?: string } | undefined)?.url).toBe(
    '/v1/products?access_token=[redacted]&ProductCode=43&client_secret=[redacted]&Api-Key=[redacted]',
  );
  expect(log.text()).not.toContain(key);
});

test('every line of the server log goes through the redaction', () => {
  ctx.app.log.info({ webhook: { url: 'https://h.example/x', secret: 'WIRED-SECRET-5e1' } }, 'webhook saved');
  const line = lines().find((l) => l.msg === 'webhook saved');
  expect(line?.webhook).toEqual({ url: 'https://h.example/x', secret: '[redacted]' });
  expect(log.text()).not.toContain('WIRED-SECRET-5e1');
});

test('a line the request writes itself carries its request id too, and goes through the redaction', async () => {
  const withRoute = await buildTestApp({
    env: { LOG_LEVEL: 'info' },
    logStream: log.stream,
    extraRoutes: (app) =>
      app.get('/test/logs-itself', { config: { public: true } }, async (request) => {
        request.log.warn({ secret: 'LOGGED-SECRET-91' }, 'the route says something');
        return { ok: true };
      }),
  });
  try {
    await withRoute.app.inject({
      url: '/test/logs-itself',
      headers: { 'x-request-id': 'access-log-test-2' },
    });
    const mine = lines().filter((l) => l.reqId === 'access-log-test-2');
    expect(mine.map((l) => l.msg)).toEqual(['the route says something', 'request completed']);
    expect(mine[0]).toMatchObject({ level: 40, secret: '[redacted]' });
    expect(log.text()).not.toContain('LOGGED-SECRET-91');
  } finally {
    await withRoute.close();
  }
});

test('a Host header with characters JSON must escape is logged as valid JSON, as sent', async () => {
  const host = 'evil"host\\back\tslash';
  await ctx.app.inject({ url: '/nowhere?q=%22', headers: { host, 'x-request-id': 'access-log-test-3' } });
  const mine = lines().filter((l) => l.reqId === 'access-log-test-3');
  expect(mine).toHaveLength(1);
  expect(mine[0]).toMatchObject({ req: { url: '/nowhere?q=%22', host }, res: { statusCode: 404 } });
});

test('an answered health probe writes no access line at info; a failing one does', async () => {
  await ctx.app.inject({ url: '/healthz', headers: { 'x-request-id': 'access-log-probe-1' } });
  await ctx.app.inject({ url: '/readyz', headers: { 'x-request-id': 'access-log-probe-2' } });
  expect(lines().filter((l) => String(l.reqId).startsWith('access-log-probe'))).toEqual([]);
  const draining = await buildTestApp({
    env: { LOG_LEVEL: 'info' },
    logStream: log.stream,
    draining: () => true,
  });
  try {
    const res = await draining.app.inject({
      url: '/readyz',
      headers: { 'x-request-id': 'access-log-probe-3' },
    });
    expect(res.statusCode).toBe(503);
    expect(lines().filter((l) => l.reqId === 'access-log-probe-3')).toMatchObject([
      { msg: 'request completed', res: { statusCode: 503 } },
    ]);
  } finally {
    await draining.close();
  }
});

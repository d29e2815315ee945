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

test('every line of the server log goes through the redaction', () => {
  ctx.app.log.info({ webhook: { url: 'https://h.example/x', secret: 'WIRED-SECRET-5e1' } }, 'webhook saved');
  const line = lines().find((l) => l.msg === 'webhook saved');
  expect(line?.webhook).toEqual({ url: 'https://h.example/x', secret: '[redacted]' });
  expect(log.text()).not.toContain('WIRED-SECRET-5e1');
});

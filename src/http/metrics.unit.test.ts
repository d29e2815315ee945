import Fastify from 'fastify';
import { Counter, Registry } from 'prom-client';
import { expect, test } from 'vitest';
import { metricsPlugin, PriceRequestCounter, RequestHistogram } from './metrics';

test('the request histogram renders as a Prometheus histogram: cumulative buckets, +Inf, sum, count', async () => {
  const app = Fastify();
  await app.register(metricsPlugin);
  app.get('/fast', async () => 'ok');
  app.get('/slow', async () => {
    // A timer may fire a fraction of a millisecond early by the request's clock (libuv counts from
    // the loop's cached time), so wait until 30 ms have passed by the monotonic clock itself.
    const start = performance.now();
    while (performance.now() - start < 30) await new Promise((resolve) => setTimeout(resolve, 5));
    return 'ok';
  });
  for (let i = 0; i < 3; i++) await app.inject({ url: '/fast' });
  await app.inject({ url: '/slow' });
  await app.inject({ url: '/nowhere' });
  const text = (await app.inject({ url: '/metrics' })).body;
  const line = (series: string) =>
    Number(
      new RegExp(`^http_request_duration_seconds${series.replace(/[{}+.]/g, '\\$&')} (\\S+)$`, 'm').exec(
        text,
      )?.[1],
    );

  // Requests are observed per route and status (their bucket depends on this machine's speed; the
  // bucket arithmetic is checked on known durations below).
  expect(text).toContain('# TYPE http_request_duration_seconds histogram');
  const fast = 'method="GET",route="/fast",status_code="200"';
  expect(line(`_bucket{le="+Inf",${fast}}`)).toBe(3);
  expect(line(`_count{${fast}}`)).toBe(3);
  const slow = 'method="GET",route="/slow",status_code="200"';
  expect(line(`_bucket{le="0.025",${slow}}`)).toBe(0);
  expect(line(`_bucket{le="+Inf",${slow}}`)).toBe(1);
  expect(line(`_sum{${slow}}`)).toBeGreaterThanOrEqual(0.03);
  expect(line(`_count{method="GET",route="unmatched",status_code="404"}`)).toBe(1);
  expect(text).toContain('process_cpu_user_seconds_total');
  await app.close();
});

test('buckets are cumulative and bounded by their upper limit: known durations land where they belong', async () => {
  const histogram = new RequestHistogram();
  const registry = new Registry();
  registry.registerMetric(histogram as never);
  for (const seconds of [0.001, 0.002, 0.004, 0.03, 7]) histogram.observe('GET', '/r', 200, seconds);
  const text = await registry.metrics();
  const bucket = (le: string) =>
    Number(new RegExp(`_bucket\\{le="${le.replace('+', '\\+')}",[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1]);
  expect(bucket('0.002')).toBe(2); // 0.002 itself is within its bucket
  expect(bucket('0.005')).toBe(3);
  expect(bucket('0.025')).toBe(3);
  expect(bucket('0.05')).toBe(4);
  expect(bucket('5')).toBe(4);
  expect(bucket('10')).toBe(5);
  expect(bucket('+Inf')).toBe(5);
  expect(text).toMatch(/_sum\{[^}]*\} 7\.037$/m);
  expect(text).toMatch(/_count\{[^}]*\} 5$/m);
});

test('the price request counter renders exactly as a prom-client counter with the same labels', async () => {
  const ours = new PriceRequestCounter();
  const theirs = new Counter({
    name: 'kolli_price_requests_total',
    help: 'Price requests by operation and status.',
    labelNames: ['operation', 'status_code'],
    registers: [],
  });
  for (const [operation, status] of [
    ['getPriceV3', 200],
    ['getPriceV3', 200],
    ['getPriceV3', 400],
    ['calculatePriceV2', 200],
  ] as const) {
    ours.inc(operation, status);
    theirs.inc({ operation, status_code: String(status) });
  }
  const render = async (metric: unknown) => {
    const registry = new Registry();
    registry.registerMetric(metric as never);
    return registry.metrics();
  };
  expect(await render(ours)).toBe(await render(theirs));
  expect(await render(ours)).toContain(
    'kolli_price_requests_total{operation="getPriceV3",status_code="200"} 2',
  );
});

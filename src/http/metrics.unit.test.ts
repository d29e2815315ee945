import Fastify from 'fastify';
import { expect, test } from 'vitest';
import { metricsPlugin } from './metrics';

test('the request histogram renders as a Prometheus histogram: cumulative buckets, +Inf, sum, count', async () => {
  const app = Fastify();
  await app.register(metricsPlugin);
  app.get('/fast', async () => 'ok');
  app.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 30));
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

  expect(text).toContain('# TYPE http_request_duration_seconds histogram');
  const fast = 'method="GET",route="/fast",status_code="200"';
  expect(line(`_bucket{le="0.002",${fast}}`)).toBeLessThanOrEqual(3);
  expect(line(`_bucket{le="0.01",${fast}}`)).toBe(3);
  expect(line(`_bucket{le="+Inf",${fast}}`)).toBe(3);
  expect(line(`_count{${fast}}`)).toBe(3);
  const slow = 'method="GET",route="/slow",status_code="200"';
  expect(line(`_bucket{le="0.025",${slow}}`)).toBe(0);
  expect(line(`_bucket{le="0.05",${slow}}`)).toBe(1);
  expect(line(`_sum{${slow}}`)).toBeGreaterThanOrEqual(0.03);
  expect(line(`_count{method="GET",route="unmatched",status_code="404"}`)).toBe(1);
  expect(text).toContain('process_cpu_user_seconds_total');
  await app.close();
});

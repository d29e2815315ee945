import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Registry } from 'prom-client';

const BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A value as prom-client's registry renders it (its `Histogram.get()` gives the same). */
interface Sample {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

/** One series of the request histogram: its labels and its per-bucket (not cumulative) counts. */
interface Series {
  labels: { method: string; route: string; status_code: string };
  counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * The request-latency histogram, in prom-client's exposition (its registry renders it like its own
 * `Histogram`). It keeps one series per method, route and status, found by a plain key: prom-client's
 * `Histogram.observe` validates and hashes the label set and stringifies the bucket bound on every
 * observation, a measurable share of a small answer's cost on the busiest routes.
 */
export class RequestHistogram {
  readonly name = 'http_request_duration_seconds';
  readonly help = 'HTTP request latency by method, route and status (its _count is the request count).';
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly series = new Map<string, Series>();

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let s = this.series.get(key);
    if (!s) {
      s = {
        labels: { method, route, status_code: String(status) },
        counts: new Float64Array(BUCKETS.length + 1),
        sum: 0,
        count: 0,
      };
      this.series.set(key, s);
    }
    let i = 0;
    while (i < BUCKETS.length && seconds > (BUCKETS[i] as number)) i++;
    s.counts[i] = (s.counts[i] ?? 0) + 1;
    s.sum += seconds;
    s.count += 1;
  }

  get() {
    const values: Sample[] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      BUCKETS.forEach((le, i) => {
        cumulative += s.counts[i] ?? 0;
        values.push({ metricName: `${this.name}_bucket`, labels: { le, ...s.labels }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...s.labels }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.series.clear();
  }
}

/** Prometheus metrics: request counts and latencies by route and status, plus process metrics. */
export const metricsPlugin = fp(async (app: FastifyInstance) => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new RequestHistogram();
  registry.registerMetric(duration as never);

  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, not the URL, keeps the label set small (`/v2/Shipment/:shipmentid`).
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    duration.observe(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
});

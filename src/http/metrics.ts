import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { bookingsTotal, invoicingRunSeconds } from '../lib/domain-metrics';
import { OPERATIONS, operationKey } from './openapi-operations';
import { answeredUnderPressure } from './overload';

declare module 'fastify' {
  interface FastifyInstance {
    /** Production with METRICS_PORT: the server that alone answers `/metrics`. */
    metricsServer?: Server;
  }
  interface FastifyContextConfig {
    /** The operation id of a price route (its tag in the operations table), counted by operation. */
    priceOperation?: string;
  }
}

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

/**
 * `kolli_price_requests_total` by operation and status, rendered like prom-client's `Counter`: one
 * value per series found by a plain key, for the same reason as `RequestHistogram` (prom-client's
 * `inc` validates and hashes the label set on every call, also through `labels()`).
 */
export class PriceRequestCounter {
  readonly name = 'kolli_price_requests_total';
  readonly help = 'Price requests by operation and status.';
  readonly type = 'counter' as const;
  readonly aggregator = 'sum' as const;
  private readonly series = new Map<
    string,
    { labels: { operation: string; status_code: string }; value: number }
  >();

  inc(operation: string, status: number): void {
    const key = `${status} ${operation}`;
    const s = this.series.get(key);
    if (s) s.value += 1;
    else this.series.set(key, { labels: { operation, status_code: String(status) }, value: 1 });
  }

  get() {
    const values: Sample[] = [...this.series.values()].map((s) => ({
      metricName: this.name,
      labels: s.labels,
      value: s.value,
    }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.series.clear();
  }
}

export interface MetricsOptions {
  /** Production: `/metrics` only on `metricsPort`, or on the API port to a key with the `admin` scope. */
  production?: boolean;
  metricsPort?: number | null;
  /** The address `metricsPort` listens on (all by default). */
  metricsHost?: string;
  /** Domain gauges read from the database when scraped (the fleet's shared state). */
  sources?: {
    outboxBacklog(): Promise<{ count: number; oldest: Date | null }>;
    deliveryCounts(): Promise<Record<string, number>>;
  };
}

const DELIVERY_OUTCOMES = ['pending', 'succeeded', 'failed'];

/** The gauges read at scrape time; a database that does not answer leaves them out, not the scrape. */
function domainGauges(
  registry: Registry,
  sources: NonNullable<MetricsOptions['sources']>,
  app: FastifyInstance,
) {
  const safely = async <T>(read: () => Promise<T>): Promise<T | null> => {
    try {
      return await read();
    } catch (err) {
      app.log.warn({ err }, 'metrics: a domain gauge could not be read');
      return null;
    }
  };
  // Both outbox gauges are collected in one scrape, at once: they share one read of the backlog.
  let backlogRead: ReturnType<typeof readBacklog> | null = null;
  const readBacklog = () => safely(sources.outboxBacklog);
  const backlog = () => {
    backlogRead ??= readBacklog().finally(() => {
      backlogRead = null;
    });
    return backlogRead;
  };
  new Gauge({
    name: 'kolli_outbox_backlog',
    help: 'Outbox events not yet fanned out to webhook deliveries.',
    registers: [registry],
    async collect() {
      const b = await backlog();
      if (b) this.set(b.count);
    },
  });
  new Gauge({
    name: 'kolli_outbox_oldest_age_seconds',
    help: 'Age of the oldest outbox event not yet fanned out (0 when there is none).',
    registers: [registry],
    async collect() {
      const b = await backlog();
      if (b) this.set(b.oldest ? Math.max(0, (Date.now() - b.oldest.getTime()) / 1000) : 0);
    },
  });
  new Gauge({
    name: 'kolli_webhook_deliveries',
    help: 'Retained webhook deliveries by outcome (pending, succeeded, failed).',
    labelNames: ['outcome'] as const,
    registers: [registry],
    async collect() {
      const counts = await safely(sources.deliveryCounts);
      if (!counts) return;
      for (const outcome of new Set([...DELIVERY_OUTCOMES, ...Object.keys(counts)])) {
        this.set({ outcome }, counts[outcome] ?? 0);
      }
    },
  });
}

/**
 * Prometheus metrics: request counts and latencies by route and status, process metrics, and the
 * domain's (bookings by status, price requests, webhook deliveries, the outbox, invoicing runs).
 */
export const metricsPlugin = fp(async (app: FastifyInstance, options: MetricsOptions = {}) => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // prom-client's collector of garbage-collection times is never stopped and keeps the registry, whose
  // gauges close over the app and its database: emptied, a closed app can be collected (tests build many).
  app.addHook('onClose', (_app, done) => {
    registry.clear();
    done();
  });
  const duration = new RequestHistogram();
  registry.registerMetric(duration as never);
  registry.registerMetric(bookingsTotal);
  registry.registerMetric(invoicingRunSeconds);
  const priceRequests = new PriceRequestCounter();
  registry.registerMetric(priceRequests as never);
  if (options.sources) domainGauges(registry, options.sources, app);

  // The price operations, found by their tag in the operations table once per route.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const entry = methods.map((m) => OPERATIONS[operationKey(m, route.url)]).find((e) => e?.tag === 'Price');
    if (entry) route.config = { ...route.config, priceOperation: entry.operationId };
  });

  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, not the URL, keeps the label set small (`/v2/Shipment/:shipmentid`).
    const route = request.is404 ? undefined : request.routeOptions;
    duration.observe(request.method, route?.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    const price = route?.config.priceOperation;
    if (price) priceRequests.inc(price, reply.statusCode);
    done();
  });

  const exposition = async () => ({ type: registry.contentType, body: await registry.metrics() });

  if (options.production && options.metricsPort != null) {
    // Only on its own port (reachable from the monitoring network, not the API's clients).
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      exposition().then(
        ({ type, body }) => res.writeHead(200, { 'content-type': type }).end(body),
        () => res.writeHead(500).end(),
      );
    });
    app.decorate('metricsServer', server);
    app.addHook('onListen', (done) => {
      server.listen(options.metricsPort ?? 0, options.metricsHost ?? '0.0.0.0', () => done());
    });
    app.addHook('onClose', (_app, done) => {
      if (server.listening) server.close(() => done());
      else done();
    });
    return;
  }

  app.get(
    '/metrics',
    // In production, only an admin key reads it; elsewhere (sandbox, development) anyone.
    // Answered under overload too (app.ts sheds the rest): a scrape is most wanted then.
    {
      config: {
        ...(options.production ? { scope: 'admin' as const } : { public: true }),
        pressureHandler: answeredUnderPressure,
      },
      schema: { hide: true },
    },
    async (_request, reply) => {
      const { type, body } = await exposition();
      return reply.type(type).send(body);
    },
  );
});

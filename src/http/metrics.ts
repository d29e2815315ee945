import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** Prometheus metrics: request counts and latencies by route and status, plus process metrics. */
export const metricsPlugin = fp(async (app: FastifyInstance) => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status (its _count is the request count).',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  // One labelled child per method, route and status, looked up by a plain key: prom-client would
  // otherwise hash the label set on every observation.
  const children = new Map<string, ReturnType<typeof duration.labels>>();
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, not the URL, keeps the label set small (`/v2/Shipment/:shipmentid`).
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let child = children.get(key);
    if (!child) {
      child = duration.labels(request.method, route, String(reply.statusCode));
      children.set(key, child);
    }
    child.observe(reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
});

import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import underPressure from '@fastify/under-pressure';
import scalar from '@scalar/fastify-api-reference';
import Fastify, { type FastifyInstance } from 'fastify';
import { adminRoutes } from './admin/routes';
import { auditPlugin } from './audit/plugin';
import { auditRoutes } from './audit/routes';
import { type AuditService, createAuditService } from './audit/service';
import { failureThrottle } from './auth/failures';
import { authPlugin } from './auth/plugin';
import { callerRoutes, tokenRoutes } from './auth/routes';
import { type AuthService, createAuthService } from './auth/service';
import { createIdempotency, type Idempotency } from './booking/idempotency';
import { shipmentPriceRoutes } from './booking/price-routes';
import { createBookingPricing } from './booking/pricing';
import { bookingRoutes } from './booking/routes';
import { type BookingService, createBookingService } from './booking/service';
import { catalogRoutes } from './catalog/routes';
import { type CatalogService, createCatalogService } from './catalog/service';
import { type Config, isProduction } from './config';
import { customerRoutes } from './customers/routes';
import { type CustomerService, createCustomerService } from './customers/service';
import type { Database } from './db/client';
import { backlog as outboxBacklog } from './events/store';
import { answerCache } from './http/answer-cache';
import { clientErrorHandler } from './http/client-errors';
import { conditionalGet } from './http/conditional';
import { corsPlugin } from './http/cors';
import { installErrorHandling } from './http/errors';
import { installJsonBodyParser, refuseEncodedBodies } from './http/json-body';
import { loggingOptions, markProbe } from './http/logging';
import { metricsPlugin } from './http/metrics';
import { swaggerOptions } from './http/openapi';
import { answeredUnderPressure, shedUnderPressure } from './http/overload';
import { sendProblem } from './http/problem';
import { rateLimitPlugin } from './http/rate-limit';
import { requestId } from './http/request-id';
import { bindRouteInput, frameworkErrors } from './http/route-input';
import { ProblemSchema } from './http/schemas';
import { API_HEADERS, PAGE_HEADERS } from './http/security-headers';
import { buildSerializer } from './http/serializers';
import { bodyAjv, textAjv } from './http/validation';
import { invoicingRoutes } from './invoicing/routes';
import { createInvoicingService, type InvoicingService } from './invoicing/service';
import { labelRoutes } from './labels/routes';
import { listingRoutes } from './listing/routes';
import { createListingService, type ListingService } from './listing/service';
import { operationsRoutes } from './operations/routes';
import { createOperationsService, type OperationsService } from './operations/service';
import { createSimulator, type Simulator } from './operations/simulator';
import { pickupPointRoutes } from './pickup-points/routes';
import { createPickupPointService, type PickupPointService } from './pickup-points/service';
import { portalPlugin } from './portal/plugin';
import { pricingRoutes } from './pricing/routes';
import { createPricingService, type PricingService } from './pricing/service';
import { createPostalCodeService, type PostalCodeService } from './reference-data/postal-codes';
import { postalCodeRoutes } from './reference-data/routes';
import { createTerminalService, type TerminalService } from './reference-data/terminals';
import { terminalRoutes } from './reference-data/terminals-routes';
import { requestLogPlugin } from './request-log/plugin';
import { requestLogRoutes } from './request-log/routes';
import { createRequestLogService, type RequestLogService } from './request-log/service';
import { scheduleRoutes } from './schedule/routes';
import { createScheduleService, type ScheduleService } from './schedule/service';
import { webhookRoutes } from './webhooks/routes';
import { createWebhookService, type WebhookService } from './webhooks/service';

/** Every domain service, built once per app from the database and configuration. */
export interface Services {
  auth: AuthService;
  customers: CustomerService;
  postalCodes: PostalCodeService;
  terminals: TerminalService;
  catalog: CatalogService;
  schedule: ScheduleService;
  pickupPoints: PickupPointService;
  webhooks: WebhookService;
  pricing: PricingService;
  booking: BookingService;
  idempotency: Idempotency;
  operations: OperationsService;
  /** The sandbox simulator; null in production. */
  simulator: Simulator | null;
  listing: ListingService;
  invoicing: InvoicingService;
  requestLog: RequestLogService;
  audit: AuditService;
}

export interface ServiceOptions {
  /** The time every service sees; tests pin it. */
  clock?: () => Date;
}

export function createServices(database: Database, config: Config, options: ServiceOptions = {}): Services {
  const { db } = database;
  const { clock } = options;
  const customers = createCustomerService({ db });
  const postalCodes = createPostalCodeService({ db });
  const catalog = createCatalogService({ db });
  const terminals = createTerminalService({ db });
  const schedule = createScheduleService({ catalog, terminals, clock });
  const pickupPoints = createPickupPointService({ db, postalCodes });
  const pricing = createPricingService({ db, clock, catalog, postalCodes, customers, terminals });
  const booking = createBookingService({
    db,
    config,
    catalog,
    postalCodes,
    customers,
    schedule,
    pricing: createBookingPricing(pricing),
    pickupPoints,
    clock,
  });
  const operations = createOperationsService({
    db,
    booking,
    terminalCodes: async () => new Set((await terminals.list()).map((t) => t.Code)),
    clock,
  });
  return {
    auth: createAuthService({ db, config }),
    customers,
    postalCodes,
    terminals,
    catalog,
    schedule,
    pickupPoints,
    pricing,
    webhooks: createWebhookService({
      db,
      allowPrivate: config.webhookAllowPrivate,
      listenersPerEventValue: config.webhooksPerEventValue,
      customers,
      shipments: booking,
      clock,
    }),
    booking,
    idempotency: createIdempotency({ db, leaseMs: config.requestTimeoutMs }),
    operations,
    simulator: isProduction(config) ? null : createSimulator({ booking, operations, postalCodes, clock }),
    listing: createListingService({ booking }),
    invoicing: createInvoicingService({
      db,
      booking,
      catalog,
      customers,
      postalCodes,
      nokPerEur: (date) => pricing.rateInForce(date, 'NOK'),
      seller: config.seller,
      clock,
    }),
    audit: createAuditService({ db, clock, retentionDays: config.auditRetentionDays }),
    requestLog: createRequestLogService({
      db,
      clock,
      settings: {
        enabled: config.requestLog,
        retentionMs: config.requestLogRetentionHours * 3_600_000,
        maxPerKey: config.requestLogMaxPerKey,
        bodyBytes: config.requestLogBodyBytes,
      },
    }),
  };
}

export interface AppDeps {
  config: Config;
  database: Database;
  services?: Services;
  /** Extra routes (tests register a route that throws, for the 500 answer). */
  extraRoutes?: (app: FastifyInstance) => void;
  /** True once the process is shutting down: `/readyz` answers 503 so the balancer drains it. */
  draining?: () => boolean;
  /** Where the log goes instead of stdout (tests read it). */
  logStream?: NodeJS.WritableStream;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  const services = deps.services ?? createServices(database, config);
  const app = Fastify({
    // One access line per request instead of Fastify's two, and a request's own logger only when it
    // logs more (http/logging.ts).
    ...loggingOptions(config.logLevel, deps.logStream),
    bodyLimit: config.bodyLimitBytes,
    // Behind a balancer, the client's address from X-Forwarded-For (the token endpoint's per-address
    // limit, the access log), from the proxies `KOLLI_TRUST_PROXY` names only.
    trustProxy: config.trustProxy.length > 0 ? [...config.trustProxy] : false,
    // A request not received whole in time is answered 408 (http/client-errors.ts): Node looks for
    // such requests every second, and a silent socket is closed only a little after that. Node
    // enforces the request timeout only with a headers timeout no longer than it (its default is 60 s).
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.requestTimeoutMs + 5_000,
    http: { connectionsCheckingInterval: 1_000, headersTimeout: Math.min(60_000, config.requestTimeoutMs) },
    // Longer than common load balancers' idle timeout, so they close first.
    keepAliveTimeout: 72_000,
    // While closing, a request that still arrives on an open connection is answered 503 by the hook
    // below, as a problem; Fastify's own answer would be a JSON body of another shape.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // No limit on a path parameter's length short of the request line's own 16 KB: the router's 100
    // characters answered a longer one 414 before the route's schema could name it (a 101-character
    // webhookId is a 400 on webhookId, CONTRACT §10). No route has a regular-expression parameter.
    routerOptions: {
      caseSensitive: false,
      ignoreTrailingSlash: true,
      ignoreDuplicateSlashes: true,
      maxParamLength: 16_384,
    },
    genReqId: requestId,
    ajv: { customOptions: { allErrors: true } },
    schemaController: { compilersFactory: { buildSerializer } },
    // A path that is not UTF-8 (a percent-escaped surrogate) as a problem naming its parameter.
    frameworkErrors,
    // What Node's HTTP parser refuses (a raw space in the path, headers over 16 KB) as a problem too.
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object),
  );
  app.addSchema(ProblemSchema);
  installErrorHandling(app);
  installJsonBodyParser(app);
  refuseEncodedBodies(app);

  // Security headers (helmet's, computed once) and the request id, on every answer. API answers get
  // the set OWASP recommends for REST services; the HTML-only headers go to the docs page alone.
  // Once the app is closing, a request that still arrives on an open connection (pipelined, or on a
  // kept-alive one) is refused before any work, to be sent to another host (Fastify adds
  // `Connection: close`); the requests in flight finish.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply
      .headers(request.routeOptions.config.page ? PAGE_HEADERS : API_HEADERS)
      .header('x-request-id', request.id);
    if (closing) {
      reply.header('retry-after', '5');
      return sendProblem(reply, 503, { detail: 'The server is shutting down; try again.' });
    }
    done();
  });

  // Case-insensitive JSON properties and query parameters, indexed lists in query strings, and text
  // that cannot be stored refused as a 400 naming its field (see http/route-input.ts), per route.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs') || route.url.startsWith('/portal')) {
      route.config = { ...route.config, public: true, page: true };
      return;
    }
    bindRouteInput(route);
  });

  await app.register(underPressure, {
    maxEventLoopDelay: config.maxEventLoopDelayMs,
    retryAfter: 5,
    pressureHandler: shedUnderPressure,
  });
  await app.register(metricsPlugin, {
    production: isProduction(config),
    // Each cluster worker on its own port, so every one can be scraped (its counters are its own).
    metricsPort: config.metricsPort === null ? null : config.metricsPort + config.workerIndex,
    metricsHost: config.metricsHost,
    sources: {
      outboxBacklog: () => outboxBacklog(database.db),
      deliveryCounts: () => services.webhooks.deliveryCounts(),
    },
  });
  await app.register(swagger, swaggerOptions());
  await app.register(conditionalGet);
  // Before authentication: a preflight carries no credentials.
  await app.register(corsPlugin, { origins: config.corsOrigins });
  // One count of failed authentications for the API and the token endpoint, shared by the fleet.
  const failures = failureThrottle(
    config.authFailuresPerMinute,
    database.kind === 'postgres' ? database.db : null,
  );
  await app.register(authPlugin, { auth: services.auth, failures });
  // After authentication, so the limit is per key; the token endpoint is limited per address.
  await app.register(rateLimitPlugin, {
    perMinute: config.rateLimitPerMinute,
    shared: database.kind === 'postgres' ? database.db : null,
  });

  await app.register(requestLogPlugin, { requestLog: services.requestLog });

  // After authentication and the rate limit, which every request goes through, replayed or not.
  await app.register(answerCache, {
    ttlMs: config.answerCacheMs,
    context: services.pricing.today,
    clearedByWritesUnder: '/admin',
  });
  // Before the routes: it adds its hooks to the admin routes that change something as they are added.
  await app.register(auditPlugin, { audit: services.audit });

  app.get(
    '/healthz',
    {
      // Answered under overload too: a busy process is alive, and a liveness probe that restarted
      // it would drop everything it was doing. `/readyz` sheds as the API does (out of rotation).
      config: { public: true, pressureHandler: answeredUnderPressure },
      schema: {
        tags: ['Operations'],
        summary: 'The process is up',
        security: [],
        response: { 200: { type: 'object', properties: { status: { type: 'string' } } } },
      },
    },
    async (request) => {
      markProbe(request);
      return { status: 'ok' };
    },
  );
  app.get(
    '/readyz',
    {
      config: { public: true },
      schema: {
        tags: ['Operations'],
        summary: 'The database answers',
        security: [],
        response: { 200: { type: 'object', properties: { status: { type: 'string' } } } },
      },
    },
    async (request, reply) => {
      markProbe(request);
      if (deps.draining?.()) return sendProblem(reply, 503, { detail: 'The server is shutting down.' });
      try {
        await database.ping();
        return { status: 'ready' };
      } catch (err) {
        request.log.warn({ err }, 'database not reachable');
        reply.header('retry-after', '5');
        return sendProblem(reply, 503, { detail: 'The database is not reachable.' });
      }
    },
  );
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());

  await app.register(tokenRoutes, { auth: services.auth, failures });
  await app.register(callerRoutes);
  await app.register(adminRoutes, services);
  await app.register(customerRoutes, services);
  await app.register(postalCodeRoutes, services);
  await app.register(terminalRoutes, services);
  await app.register(catalogRoutes, services);
  await app.register(scheduleRoutes, services);
  await app.register(pickupPointRoutes, services);
  await app.register(webhookRoutes, services);
  await app.register(pricingRoutes, services);
  await app.register(bookingRoutes, services);
  await app.register(shipmentPriceRoutes, services);
  await app.register(operationsRoutes, services);
  await app.register(listingRoutes, services);
  await app.register(labelRoutes, {
    loadLabelShipment: (account, shipmentId) => services.booking.labelShipment(account, shipmentId),
  });
  await app.register(invoicingRoutes, services);
  await app.register(requestLogRoutes, services);
  await app.register(auditRoutes, services);
  await app.register(portalPlugin);
  deps.extraRoutes?.(app);

  await app.register(scalar, {
    routePrefix: '/docs',
    // The system's fonts, not Scalar's from its CDN: the page loads nothing from elsewhere, so a
    // sandbox without internet shows it whole and a reader's visit is told to no third party.
    configuration: {
      url: '/openapi.json',
      title: 'Kolli API reference',
      hideClientButton: false,
      withDefaultFonts: false,
    },
  });
  return app;
}

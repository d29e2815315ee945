import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import underPressure from '@fastify/under-pressure';
import scalar from '@scalar/fastify-api-reference';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { adminRoutes } from './admin/routes';
import { authPlugin } from './auth/plugin';
import { tokenRoutes } from './auth/routes';
import { type AuthService, createAuthService } from './auth/service';
import type { Config } from './config';
import { customerRoutes } from './customers/routes';
import { type CustomerService, createCustomerService } from './customers/service';
import type { Database } from './db/client';
import { compileBinder, fieldsWithNul } from './http/binding';
import { installErrorHandling } from './http/errors';
import { metricsPlugin } from './http/metrics';
import { sendProblem } from './http/problem';
import { ProblemSchema } from './http/schemas';
import { bodyAjv, textAjv } from './http/validation';
import { ValidationFailed } from './lib/errors';
import { createPostalCodeService, type PostalCodeService } from './reference-data/postal-codes';
import { postalCodeRoutes } from './reference-data/routes';

/** Every domain service, built once per app from the database and configuration. */
export interface Services {
  auth: AuthService;
  customers: CustomerService;
  postalCodes: PostalCodeService;
}

export interface ServiceOptions {
  /** The time every service sees; tests pin it. */
  clock?: () => Date;
}

export function createServices(database: Database, config: Config, _options: ServiceOptions = {}): Services {
  const { db } = database;
  return {
    auth: createAuthService({ db, config }),
    customers: createCustomerService({ db }),
    postalCodes: createPostalCodeService({ db }),
  };
}

export interface AppDeps {
  config: Config;
  database: Database;
  services?: Services;
  /** Extra routes (tests register a route that throws, for the 500 answer). */
  extraRoutes?: (app: FastifyInstance) => void;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Log redaction: credentials and secrets never reach the log. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.password',
  '*.client_secret',
  '*.secret',
  '*.Key',
  '*.access_token',
];

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  const services = deps.services ?? createServices(database, config);
  const logger: FastifyServerOptions['logger'] =
    config.logLevel === 'silent'
      ? false
      : { level: config.logLevel, redact: { paths: REDACT, censor: '[redacted]' } };

  const app = Fastify({
    logger,
    bodyLimit: config.bodyLimitBytes,
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.requestTimeoutMs,
    // Longer than common load balancers' idle timeout, so they close first.
    keepAliveTimeout: 72_000,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    // Accept the caller's X-Request-Id when it is sane, so traces join up across services.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { allErrors: true } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object),
  );
  app.addSchema(ProblemSchema);
  installErrorHandling(app);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // Case-insensitive JSON properties and query parameters (see http/binding.ts), compiled per route.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) {
      route.config = { ...route.config, public: true };
      return;
    }
    const schema = route.schema as { body?: object; querystring?: object } | undefined;
    if (!schema?.body && !schema?.querystring) return;
    const bindBody = compileBinder(schema.body);
    const bindQuery = compileBinder(schema.querystring);
    const hook = async (request: { body: unknown; query: unknown }) => {
      if (schema.body) request.body = bindBody(request.body);
      if (schema.querystring) request.query = bindQuery(request.query);
      const nul = [...fieldsWithNul(request.body), ...fieldsWithNul(request.query)];
      if (nul.length > 0) {
        throw new ValidationFailed(
          Object.fromEntries(nul.map((f) => [f, ['The field must not contain NUL characters.']])),
        );
      }
    };
    route.preValidation = [
      ...(Array.isArray(route.preValidation)
        ? route.preValidation
        : route.preValidation
          ? [route.preValidation]
          : []),
      hook,
    ];
  });

  await app.register(helmet, {
    // The JSON API needs no CSP; the docs page runs Scalar's inline bootstrap.
    contentSecurityPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-site' },
  });
  await app.register(underPressure, {
    maxEventLoopDelay: 2000,
    retryAfter: 5,
    pressureHandler: (_request, reply) => {
      reply.header('retry-after', '5');
      sendProblem(reply, 503, { detail: 'The server is overloaded; try again shortly.' });
    },
  });
  await app.register(formbody);
  await app.register(metricsPlugin);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Kolli — parcel shipping service',
        version: '1.0.0',
        description:
          'Booking, price calculation, invoice reports, shipment listing and webhooks for business customers of a Norwegian parcel carrier, with the companion interfaces (products, schedule, pickup points, postal codes, labels) and administration. Authenticate with `Authorization: Bearer <API key or access token>`. Validation errors answer 400 with `application/problem+json`.',
      },
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key or an access token from POST /oauth/token.',
          },
        },
      },
      security: [{ bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(authPlugin, { auth: services.auth });
  await app.register(rateLimit, {
    // After authentication, so the limit is per key; unauthenticated callers are limited per address.
    hook: 'preParsing',
    max: config.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => (request.account ? `key:${request.account.keyId}` : `ip:${request.ip}`),
    allowList: (request) => request.routeOptions.config.public === true && !request.url.startsWith('/oauth'),
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      message: `Rate limit exceeded; retry in ${context.after}.`,
    }),
  });

  app.get(
    '/healthz',
    {
      config: { public: true },
      schema: {
        tags: ['Operations'],
        summary: 'The process is up',
        security: [],
        response: { 200: { type: 'object', properties: { status: { type: 'string' } } } },
      },
    },
    async () => ({ status: 'ok' }),
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
      try {
        await database.ping();
        return { status: 'ready' };
      } catch (err) {
        request.log.warn({ err }, 'database not reachable');
        return sendProblem(reply, 503, { detail: 'The database is not reachable.' });
      }
    },
  );
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());

  await app.register(tokenRoutes, { auth: services.auth });
  await app.register(adminRoutes, services);
  await app.register(customerRoutes, services);
  await app.register(postalCodeRoutes, services);
  deps.extraRoutes?.(app);

  await app.register(scalar, {
    routePrefix: '/docs',
    configuration: { url: '/openapi.json', title: 'Kolli API reference', hideClientButton: false },
  });
  return app;
}

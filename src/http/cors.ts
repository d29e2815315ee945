import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** What a browser may send: the API's methods and the headers its operations read. */
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'];
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Accept',
  'Idempotency-Key',
  'If-Match',
  'If-None-Match',
  'X-Request-Id',
];
/** What a browser script may read from an answer. */
export const CORS_EXPOSED_HEADERS = [
  'ETag',
  'Location',
  'Retry-After',
  'Idempotent-Replayed',
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Content-Disposition',
];

/**
 * CORS (@fastify/cors) for the configured origins (`KOLLI_CORS_ORIGINS`; `*` admits any). With no
 * origin configured, no CORS header is sent and browsers on other origins are refused. Credentials
 * travel in `Authorization`, never in cookies, so `Access-Control-Allow-Credentials` is not sent.
 */
export const corsPlugin = fp(async (app: FastifyInstance, { origins }: { origins: readonly string[] }) => {
  if (origins.length === 0) return;
  const any = origins.includes('*');
  await app.register(cors, {
    origin: any ? '*' : [...origins],
    methods: CORS_METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
    // Preflights answer before authentication: a browser never sends credentials on them.
    hideOptionsRoute: true,
    // An OPTIONS without Origin or Access-Control-Request-Method (a client asking what a path
    // allows, not a browser) gets the same 204 with the methods, not a plain-text 400.
    strictPreflight: false,
  });
});

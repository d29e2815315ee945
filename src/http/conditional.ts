import { createHash, type Hash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { OPERATIONS, operationKey } from './openapi-operations';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** GET answers carry an ETag; `If-None-Match` with it answers 304 (set from the operations table). */
    conditional?: boolean;
  }
}

/** The strong ETag of what a SHA-256 hash was fed. */
export const hashTag = (hash: Hash) => `"${hash.digest('base64url').slice(0, 27)}"`;

/** A strong ETag of some bytes: equal content, equal tag. */
export const contentTag = (content: string | Buffer) => hashTag(createHash('sha256').update(content));

/** RFC 9110 §13.1.2: `If-None-Match` compares weakly; `*` matches any current answer. */
export function noneMatch(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const current = opaque(etag);
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || opaque(t) === current);
}

/**
 * For a route whose answer is costly to produce (a PDF): sets `etag` on the answer and, when the
 * client already has that version, answers 304 at once, before anything is rendered. True then.
 */
export function answeredNotModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply.header('etag', etag);
  if (!noneMatch(request.headers['if-none-match'], etag)) return false;
  void reply.code(304).send();
  return true;
}

/**
 * Conditional GET for the routes the operations table marks `conditional`: the answer's ETag is the
 * one the route set (a shipment's version, a label's content) or else the hash of the body; an
 * `If-None-Match` naming it answers 304 with no body. A streamed answer (a PDF) is checked by its
 * route instead, before it is rendered (`answeredNotModified`).
 */
export const conditionalGet = fp(async (app: FastifyInstance) => {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.some((m) => OPERATIONS[operationKey(m, route.url)]?.conditional)) {
      route.config = { ...route.config, conditional: true };
    }
  });

  // A callback hook: every answer passes it, and those of other routes (a price, a booking) leave
  // at once, without a promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.routeOptions.config.conditional || reply.statusCode !== 200) return done(null, payload);
    if (request.method !== 'GET' && request.method !== 'HEAD') return done(null, payload);
    let etag = reply.getHeader('etag');
    if (typeof etag !== 'string') {
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
      etag = contentTag(payload);
      reply.header('etag', etag);
    }
    if (!noneMatch(request.headers['if-none-match'], etag)) return done(null, payload);
    reply.code(304).removeHeader('content-length').removeHeader('content-type');
    done(null, null);
  });
});

import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import { LRUCache } from 'lru-cache';
import { asList } from './route-hooks';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's GET answers are pure functions of the URL, the caller's key and the data in force,
     * so a 200 answer may be replayed for the same key and URL for a moment (see answer-cache.ts).
     */
    answerCache?: boolean;
  }
  interface FastifyRequest {
    /**
     * The request's key in the answer cache when it missed there, so its answer may be kept; null
     * otherwise (a replay is not stored again, so an entry never outlives its lifetime).
     */
    answerCacheKey: string | null;
  }
}

export interface AnswerCacheOptions {
  /** How long an answer is replayed; 0 turns the cache off. */
  ttlMs: number;
  /**
   * What else the answers depend on, as a string that changes when it does (the pricing date in
   * force, say); part of the key.
   */
  context: () => string;
  /** A successful write to a route under this prefix may change any answer, and clears the cache. */
  clearedByWritesUnder: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Micro-caching of idempotent GET answers that many callers ask again and again (a web shop asks the
 * price of the same parcel on every checkout page). The 200 answer of an opted-in route is kept
 * already serialised, per API key and URL, for `ttlMs`; a repeat within that time skips binding,
 * validation, the handler and serialisation. Authentication, scope, the rate limit, metrics and the
 * security headers still run on every request, because they come before it.
 *
 * Staleness is bounded: an entry lives `ttlMs` (1 s by default), its key holds `context()` (for
 * prices the Oslo date, which picks the tariff in force), and any successful write under
 * `clearedByWritesUnder` through this process (for prices `/admin`: tariffs, exchange rates,
 * customers and agreements, catalogue, postal codes) clears the cache at once. Changes made through another process reach this one's data caches
 * within their own 10 s anyway.
 */
export const answerCache = fp(async (app: FastifyInstance, opts: AnswerCacheOptions) => {
  if (opts.ttlMs <= 0) return;
  const answers = new LRUCache<string, string>({
    max: 10_000,
    maxSize: 32 * 1024 * 1024,
    sizeCalculation: (answer, key) => answer.length + key.length,
    ttl: opts.ttlMs,
    ttlAutopurge: false,
  });

  app.decorateRequest('answerCacheKey', null);

  // Callback hooks and no closures per request: this path exists to be cheap.
  function replay(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    if (request.method !== 'GET') return done();
    const key = `${request.account.keyId}\u0000${opts.context()}\u0000${request.url}`;
    const answer = answers.get(key);
    if (answer === undefined) {
      request.answerCacheKey = key;
      return done();
    }
    reply.header('content-type', JSON_TYPE).send(answer);
  }

  function keep(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (err: Error | null, payload?: unknown) => void,
  ) {
    const key = request.answerCacheKey;
    if (
      key !== null &&
      reply.statusCode === 200 &&
      typeof payload === 'string' &&
      payload.length <= MAX_ANSWER_BYTES
    ) {
      answers.set(key, payload);
    }
    done(null, payload);
  }

  function clearOnWrite(_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    if (reply.statusCode < 400) answers.clear();
    done();
  }

  app.addHook('onRoute', (route) => {
    // Only the writes that may change an answer get the clearing hook.
    const methods = asList(route.method);
    if (route.url.startsWith(opts.clearedByWritesUnder) && methods.some((m) => m !== 'GET' && m !== 'HEAD')) {
      route.onResponse = [...asList(route.onResponse), clearOnWrite];
    }
    if (!route.config?.answerCache) return;
    // First among the route's preValidation hooks: a replay needs no binding or validation.
    route.preValidation = [replay, ...asList(route.preValidation)];
    route.onSend = [...asList(route.onSend), keep];
  });
});

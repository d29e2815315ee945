import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { sendProblem } from './problem';

export interface RateLimitOptions {
  /** Requests per key (or, without one, per address) per minute. */
  perMinute: number;
}

const WINDOW_SECONDS = 60;

/**
 * Per-key rate limiting (CONTRACT §3): a fixed one-minute window per API key, or per address for the
 * token endpoint, counted by `rate-limiter-flexible`. An exhausted key gets 429 with `Retry-After`;
 * every answer carries `X-RateLimit-Limit`, `-Remaining` and `-Reset` (seconds).
 *
 * It runs as an `onRequest` hook after authentication, so it knows the key, and with one promise per
 * request: `@fastify/rate-limit` awaited four times per request on the hottest routes and cost about a
 * third of a replayed price answer's throughput (docs/operations.md).
 */
export const rateLimitPlugin = fp(async (app: FastifyInstance, opts: RateLimitOptions) => {
  const limiter = new RateLimiterMemory({ points: opts.perMinute, duration: WINDOW_SECONDS });
  const limit = String(opts.perMinute);

  function setHeaders(reply: FastifyReply, res: RateLimiterRes) {
    reply
      .header('x-ratelimit-limit', limit)
      .header('x-ratelimit-remaining', res.remainingPoints)
      .header('x-ratelimit-reset', Math.ceil(res.msBeforeNext / 1000));
  }

  function refuse(reply: FastifyReply, done: HookHandlerDoneFunction, res: unknown) {
    // The limiter rejects with its result when the key is exhausted, with an Error when it fails.
    if (!(res instanceof RateLimiterRes)) return done(res instanceof Error ? res : new Error(String(res)));
    setHeaders(reply, res);
    const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    reply.header('retry-after', seconds);
    sendProblem(reply, 429, { detail: `Rate limit exceeded; retry in ${seconds} seconds.` });
  }

  app.addHook('onRequest', (request: FastifyRequest, reply, done) => {
    const config = request.routeOptions.config;
    // Public reads (health, docs, metrics) are not limited; the token endpoint is, per address.
    if (request.is404 || (config.public && request.routeOptions.url !== '/oauth/token')) return done();
    const key = request.account ? `key:${request.account.keyId}` : `ip:${request.ip}`;
    limiter.consume(key).then(
      (res) => {
        setHeaders(reply, res);
        done();
      },
      (res: unknown) => refuse(reply, done, res),
    );
  });
});

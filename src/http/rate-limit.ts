import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import { RateLimiterDrizzle, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '../db/client';
import { numberText } from '../lib/number-text';
import { sendProblem } from './problem';
import { rateLimits } from './rate-limit-tables';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A public route that is still rate-limited, per address (the token endpoint's paths). */
    rateLimited?: boolean;
  }
}

export interface RateLimitOptions {
  /** Requests per key (or, without one, per address) per minute. */
  perMinute: number;
  /**
   * The database every process of the fleet shares (PostgreSQL): the counts live there, so the limit
   * holds for the fleet as a whole. Null counts in this process alone (the embedded database, which
   * one process owns).
   */
  shared: Db | null;
}

const WINDOW_SECONDS = 60;

/** The part of a `rate-limiter-flexible` limiter the grants use. */
export interface PointStore {
  consume(key: string, points: number): Promise<RateLimiterRes>;
}

/** What one request is told. `resetMs` counts down to the end of the shared window. */
export interface Decision {
  allowed: boolean;
  remaining: number;
  resetMs: number;
}

interface Grant {
  /** Points this process took from the shared count and has not used yet. */
  left: number;
  /** What the shared count had left right after this process took its points. */
  shared: number;
  /** When the shared window ends (this process's clock). */
  resetAt: number;
}

/**
 * The points one process takes from the shared count at a time: 1 % of the limit. Points are only
 * ever granted out of the shared count, so the fleet never admits more than the limit in a window;
 * points a process took and did not use before the window ends are lost, so a key may be refused up
 * to (processes × 1 %) of the limit early.
 */
export const grantSize = (perMinute: number) => Math.max(1, Math.ceil(perMinute / 100));

/**
 * A limiter that counts in a shared store in batches: a process takes `grant` points at a time
 * (one store round trip) and hands them out from memory, so most requests cost no round trip and
 * no promise. Every grant comes out of the shared count atomically (the store's upsert), so the
 * fleet together never exceeds `perMinute` in a window; `Retry-After` comes from the shared window.
 */
export function createGrantLimiter(options: { perMinute: number; store: PointStore; grant?: number }) {
  const { perMinute, store } = options;
  const grant = options.grant ?? grantSize(perMinute);
  const grants = new Map<string, Grant>();
  const pending = new Map<string, Promise<void>>();

  function local(key: string, now: number): Decision | null {
    const g = grants.get(key);
    if (!g || now >= g.resetAt) return null;
    if (g.left > 0) {
      g.left -= 1;
      return { allowed: true, remaining: g.shared + g.left, resetMs: g.resetAt - now };
    }
    // Nothing left here and nothing left in the shared count: refused until the window ends.
    if (g.shared === 0) return { allowed: false, remaining: 0, resetMs: g.resetAt - now };
    return null;
  }

  function reserve(key: string): Promise<void> {
    const running = pending.get(key);
    if (running) return running;
    const started = Date.now();
    const settle = (res: unknown) => {
      // The store rejects with its result when the count went over the limit, with an Error when it
      // failed (there is an in-memory insurance, so it rarely does).
      if (!(res instanceof RateLimiterRes)) throw res instanceof Error ? res : new Error(String(res));
      // The store adds the whole request atomically; what was left before it is what we may take.
      const before = res.consumedPoints - grant;
      const granted = Math.min(grant, Math.max(0, perMinute - before));
      if (grants.size > 10_000) {
        for (const [k, g] of grants) if (g.resetAt <= started) grants.delete(k);
      }
      grants.set(key, {
        left: granted,
        shared: Math.max(0, perMinute - res.consumedPoints),
        resetAt: started + Math.max(1, res.msBeforeNext),
      });
    };
    const task = store
      .consume(key, grant)
      .then(settle, settle)
      .finally(() => pending.delete(key));
    pending.set(key, task);
    return task;
  }

  /** A decision now when this process holds points for the key, else a promise of one. */
  function take(key: string): Decision | Promise<Decision> {
    const now = Date.now();
    const decided = local(key, now);
    if (decided) return decided;
    return reserve(key).then(() => take(key));
  }

  return { take, grant };
}

/**
 * The `X-RateLimit-*` headers of a decision; its reset, in whole seconds. The counts are written as
 * text here: Node would turn a number into text through V8's number-string cache (numberText).
 */
export function rateLimitHeaders(reply: FastifyReply, limit: string, d: Decision): number {
  const seconds = Math.ceil(d.resetMs / 1000);
  reply
    .header('x-ratelimit-limit', limit)
    .header('x-ratelimit-remaining', numberText(d.remaining))
    .header('x-ratelimit-reset', numberText(seconds));
  return seconds;
}

/**
 * A count of `points` per one-minute window and key that the fleet shares: in `rate_limits` on
 * PostgreSQL (`shared`), insured by a per-process count while the database is away; in this
 * process's memory on the embedded database, which one process owns. `keyPrefix` keeps the counts
 * of different uses apart in the one table.
 */
export function fleetCounter(
  shared: Db | null,
  opts: { keyPrefix: string; points: number },
): RateLimiterDrizzle | RateLimiterMemory {
  const memory = () => new RateLimiterMemory({ points: opts.points, duration: WINDOW_SECONDS });
  if (!shared) return memory();
  return new RateLimiterDrizzle({
    storeClient: shared,
    schema: rateLimits,
    keyPrefix: opts.keyPrefix,
    points: opts.points,
    duration: WINDOW_SECONDS,
    insuranceLimiter: memory(),
  });
}

/**
 * Per-key rate limiting (CONTRACT §3): a fixed one-minute window per API key, or per address for the
 * token endpoint, counted by `rate-limiter-flexible`. With PostgreSQL the count is shared by every
 * process of the fleet (`rate_limits`), taken in grants of 1 % of the limit (`createGrantLimiter`);
 * on the embedded database it is counted in memory. An exhausted key gets 429 with `Retry-After`;
 * every answer carries `X-RateLimit-Limit`, `-Remaining` and `-Reset` (seconds).
 *
 * It runs as an `onRequest` hook after authentication, so it knows the key; a request that finds
 * points in this process's grant is decided synchronously (docs/operations.md: the price ratio).
 */
export const rateLimitPlugin = fp(async (app: FastifyInstance, opts: RateLimitOptions) => {
  const store: PointStore = fleetCounter(opts.shared, { keyPrefix: 'rl', points: opts.perMinute });
  const limiter = createGrantLimiter({ perMinute: opts.perMinute, store });
  const limit = String(opts.perMinute);

  function answer(reply: FastifyReply, done: HookHandlerDoneFunction, d: Decision) {
    const seconds = rateLimitHeaders(reply, limit, d);
    if (d.allowed) return done();
    const retry = Math.max(1, seconds);
    reply.header('retry-after', retry);
    sendProblem(reply, 429, { detail: `Rate limit exceeded; retry in ${retry} seconds.` });
  }

  app.addHook('onRequest', (request: FastifyRequest, reply, done) => {
    const config = request.routeOptions.config;
    // Public reads (health, docs, metrics) are not limited; the token endpoint is, per address.
    if (request.is404 || (config.public && !config.rateLimited)) return done();
    const key = request.account ? `key:${request.account.keyId}` : `ip:${request.ip}`;
    const decided = limiter.take(key);
    if (!(decided instanceof Promise)) return answer(reply, done, decided);
    decided.then(
      (d) => answer(reply, done, d),
      (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
    );
  });
});

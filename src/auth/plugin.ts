import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import { sendPlain, sendProblem } from '../http/problem';
import { type Account, hasScope, type Scope } from './access';
import type { FailureThrottle } from './failures';
import type { AuthService } from './service';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reachable without a key (health, metrics, docs, the token endpoint). */
    public?: boolean;
    /** Scope the key must hold; absent means any valid key will do. */
    scope?: Scope;
  }
  interface FastifyRequest {
    /** The caller; set on every route that is not `public` before anything else runs. */
    account: Account;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * How long a connection's last `Authorization` header is trusted without a fresh look into the key
 * cache. Keep-alive clients send the same header on every request, and hashing the key for the
 * cache cost several per cent of a price. With the cache's 4 s (`KEY_CACHE_MS`) a key revoked
 * elsewhere still stops working within the contract's 5 s; one revoked here, at once (`revision`).
 */
export const CONNECTION_MEMO_MS = 500;

interface Memo {
  header: string;
  account: Account;
  until: number;
  revision: number;
}

/** The key or token of an `Authorization: Bearer …` header, if it holds one. */
export const bearerCredential = (header: string | undefined): string | undefined =>
  BEARER.exec(header ?? '')?.[1];

/** Lets the request through with its account, or answers 401 (no valid key) or 403 (no scope). */
function admit(
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
  account: Account | null,
) {
  if (!account) {
    sendPlain(reply, 401, 'The API key or access token is not valid.');
    return;
  }
  request.account = account;
  const scope = request.routeOptions.config.scope;
  if (scope && !hasScope(account, scope)) {
    sendPlain(reply, 403, `This key lacks the scope '${scope}'.`);
    return;
  }
  done();
}

/** An address that failed to authenticate too often: 429 with `Retry-After`, whatever it sends now. */
export function refuseGuessing(reply: FastifyReply, blockedMs: number): FastifyReply {
  const seconds = Math.ceil(blockedMs / 1000);
  reply.header('retry-after', seconds);
  return sendProblem(reply, 429, {
    detail: `Too many failed authentications from this address; retry in ${seconds} seconds.`,
  });
}

/** The header held no credential at all (as against one that is not valid: `null`). */
export const NO_CREDENTIAL = Symbol('no credential');

/**
 * The account of a request's `Authorization` header: at once when the connection sent the same
 * header within `CONNECTION_MEMO_MS` (and nothing was revoked here since) or the key cache knows it,
 * else a promise of the lookup. `null`: not a valid key or token.
 */
export function connectionAccounts(auth: AuthService) {
  const byConnection = new WeakMap<object, Memo>();
  return (request: FastifyRequest): Account | null | typeof NO_CREDENTIAL | Promise<Account | null> => {
    const header = request.headers.authorization;
    const connection = request.raw.socket;
    const memo = byConnection.get(connection);
    if (memo && memo.header === header && memo.until > Date.now() && memo.revision === auth.revision())
      return memo.account;
    const credential = bearerCredential(header);
    if (!credential || header === undefined) return NO_CREDENTIAL;
    const cached = auth.cachedAccount(credential);
    if (cached) {
      const until = Date.now() + CONNECTION_MEMO_MS;
      byConnection.set(connection, { header, account: cached, until, revision: auth.revision() });
    }
    return cached !== undefined ? cached : auth.authenticate(credential);
  };
}

/**
 * Authenticates every non-public request in `onRequest`, before the body is read, so a caller
 * without a valid key learns nothing but 401 (text/plain) and one without the scope 403.
 */
export const authPlugin = fp(
  async (app: FastifyInstance, opts: { auth: AuthService; failures: FailureThrottle }) => {
    app.decorateRequest('account', null as unknown as Account);
    // A callback hook, not an async one, and no closure per request: a key in the cache is admitted
    // without a promise, which on the hottest routes (prices) is a measurable share of the request.
    const accountOf = connectionAccounts(opts.auth);
    app.addHook('onRequest', (request, reply, done) => {
      if (request.routeOptions.config.public || request.is404) return done();
      const account = accountOf(request);
      if (account === NO_CREDENTIAL) {
        sendPlain(reply, 401, 'An API key is required: Authorization: Bearer <key>.');
        return;
      }
      if (!(account instanceof Promise)) return admit(request, reply, done, account);
      // A credential this process has not seen lately: judged only while the address has not failed
      // too often, and a failure counted.
      Promise.all([account, opts.failures.blockedFor(request.ip)]).then(async ([found, blockedMs]) => {
        if (blockedMs !== null) return refuseGuessing(reply, blockedMs);
        if (!found) await opts.failures.failed(request.ip);
        admit(request, reply, done, found);
      }, done);
    });
  },
);

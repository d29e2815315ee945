import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sendPlain } from '../http/problem';
import { type Account, hasScope, type Scope } from './access';
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
 * Authenticates every non-public request in `onRequest`, before the body is read, so a caller
 * without a valid key learns nothing but 401 (text/plain) and one without the scope 403.
 */
export const authPlugin = fp(async (app: FastifyInstance, opts: { auth: AuthService }) => {
  app.decorateRequest('account', null as unknown as Account);
  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    if (config.public || request.is404) return;
    const match = BEARER.exec(request.headers.authorization ?? '');
    const account = match?.[1] ? await opts.auth.authenticate(match[1]) : null;
    if (!account) {
      return sendPlain(
        reply,
        401,
        match
          ? 'The API key or access token is not valid.'
          : 'An API key is required: Authorization: Bearer <key>.',
      );
    }
    request.account = account;
    if (config.scope && !hasScope(account, config.scope)) {
      return sendPlain(reply, 403, `This key lacks the scope '${config.scope}'.`);
    }
  });
});

import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authErrors } from '../http/schemas';
import { DomainError } from '../lib/errors';
import type { FailureThrottle } from './failures';
import { refuseGuessing } from './plugin';
import type { AuthService } from './service';

const TokenRequest = Type.Object({
  grant_type: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
  client_secret: Type.Optional(Type.String()),
  scope: Type.Optional(Type.String()),
});

const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
});

const OAuthError = Type.Object({
  error: Type.String(),
  error_description: Type.Optional(Type.String()),
});

/** `client_id:client_secret` from an HTTP Basic header (RFC 6749 §2.3.1), when one is sent. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | null {
  const m = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!m?.[1]) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon)),
      secret: decodeURIComponent(decoded.slice(colon + 1)),
    };
  } catch {
    return null; // malformed percent-encoding: no usable client credentials
  }
}

/**
 * RFC 6749 §5.2's code for a refusal the endpoint did not make itself: a broken request (the body's
 * parser or schema), the rate limit, an outage or a fault.
 */
function oauthErrorOf(status: number): string {
  if (status === 429 || status === 503) return 'temporarily_unavailable';
  return status >= 500 ? 'server_error' : 'invalid_request';
}

/** The token endpoint's paths: Kolli's own and the original service's. */
const TOKEN_PATHS = ['/oauth/token', '/as/token.oauth2'] as const;

/**
 * OAuth2 token endpoint (RFC 6749) for clients built for the original service's login.
 * Errors follow the RFC (`{"error": ...}`), not the problem shape.
 */
export const tokenRoutes: FastifyPluginAsyncTypebox<{
  auth: AuthService;
  failures: FailureThrottle;
}> = async (app, { auth, failures }) => {
  // Form bodies are RFC 6749's for this endpoint only; registered in its own context, every other
  // route keeps refusing them as 415 (CONTRACT §4), so a cross-site form post reaches nothing.
  await app.register(formbody);
  // What the API's layers answer as a problem (the parser, the schema, the rate limit, a fault) an
  // OAuth client reads as RFC 6749's error object too: it looks for `error`, not `errors`.
  app.addHook('onSend', async (_request, reply, payload) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (!type.startsWith('application/problem+json') || typeof payload !== 'string') return payload;
    const problem = JSON.parse(payload) as {
      title?: string;
      detail?: string;
      errors?: Record<string, string[]>;
    };
    const description =
      reply.statusCode === 415
        ? 'The body must be application/x-www-form-urlencoded.'
        : (problem.detail ?? Object.values(problem.errors ?? {}).flat()[0] ?? problem.title);
    reply.type('application/json; charset=utf-8');
    return JSON.stringify({ error: oauthErrorOf(reply.statusCode), error_description: description });
  });

  // `/as/token.oauth2` is the original service's token path (CONTRACT §14): the same endpoint.
  for (const url of TOKEN_PATHS) {
    app.post(
      url,
      {
        config: { public: true, rateLimited: true },
        schema: {
          tags: ['Authentication'],
          summary:
            url === '/oauth/token'
              ? 'Exchange an API key for an access token'
              : 'Exchange an API key for an access token (the original service’s token path)',
          description:
            'Form-encoded. `grant_type=password` with `username` = API key id and `password` = API key, or `grant_type=client_credentials` with `client_id`/`client_secret` likewise (also accepted as HTTP Basic). The token is used as `Authorization: Bearer <access_token>`. Every error answer, the rate limit\'s 429 and a malformed body\'s 400 or 415 included, is RFC 6749\'s `{"error", "error_description"}`.',
          consumes: ['application/x-www-form-urlencoded'],
          security: [],
          body: TokenRequest,
          response: { 200: TokenResponse, 400: OAuthError, 401: OAuthError },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
        const body = request.body;
        const fail = (status: 400 | 401, error: string, description: string) =>
          reply.code(status).send({ error, error_description: description });
        // Wrong credentials count with the API's; an address past the limit learns nothing more.
        const blockedMs = await failures.blockedFor(request.ip);
        if (blockedMs !== null) return refuseGuessing(reply, blockedMs);
        try {
          if (body.grant_type === 'password') {
            if (!body.username || !body.password) {
              return fail(400, 'invalid_request', 'username and password are required.');
            }
            try {
              return await auth.issueToken(body.username, body.password);
            } catch (e) {
              if (e instanceof DomainError) {
                await failures.failed(request.ip);
                return fail(400, 'invalid_grant', 'The key id or key is not valid.');
              }
              throw e;
            }
          }
          if (body.grant_type === 'client_credentials') {
            const basic = basicCredentials(request.headers.authorization);
            const id = body.client_id ?? basic?.id;
            const secret = body.client_secret ?? basic?.secret;
            if (!id || !secret) {
              reply.header('www-authenticate', 'Basic realm="kolli"');
              return fail(401, 'invalid_client', 'client_id and client_secret are required.');
            }
            return await auth.issueToken(id, secret);
          }
          return fail(
            400,
            body.grant_type ? 'unsupported_grant_type' : 'invalid_request',
            body.grant_type ? `Grant type '${body.grant_type}' is not supported.` : 'grant_type is required.',
          );
        } catch (e) {
          if (e instanceof DomainError && e.kind === 'unauthorized') {
            await failures.failed(request.ip);
            reply.header('www-authenticate', 'Basic realm="kolli"');
            return fail(401, 'invalid_client', 'The client id or secret is not valid.');
          }
          throw e;
        }
      },
    );
  }
};

const Caller = Type.Object(
  {
    KeyId: Type.String({ description: 'The key the request was made with (a token’s key).' }),
    Name: Type.String(),
    CustomerNrs: Type.Array(Type.String(), {
      description: 'The customer numbers the key acts for; an `admin` key acts for all and lists none.',
    }),
    Scopes: Type.Array(Type.String()),
  },
  {
    examples: [
      { KeyId: 'key_c7y6y_Qxutvq', Name: 'Nettbutikk', CustomerNrs: ['1000'], Scopes: ['booking', 'price'] },
    ],
  },
);

/** `GET /v1/me`: what the key or token in use may do, so a client asks instead of probing with 403s. */
export const callerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/me',
    {
      schema: {
        tags: ['Authentication'],
        summary: 'The key in use: its customers and scopes',
        description:
          'Any valid key or token may ask. A client (the portal) learns from it which operations the key may call, instead of calling them and being refused.',
        response: { 200: Caller, ...authErrors },
      },
    },
    async (request) => ({
      KeyId: request.account.keyId,
      Name: request.account.name,
      CustomerNrs: [...request.account.customerNrs].sort(),
      Scopes: [...request.account.scopes].sort(),
    }),
  );
};

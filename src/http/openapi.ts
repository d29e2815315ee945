import { isDeepStrictEqual } from 'node:util';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { EXAMPLES } from './openapi-examples';
import { OPERATIONS, operationKey, TAGS } from './openapi-operations';
import { COMPONENT } from './schemas';

// The OpenAPI document stays generated from the route schemas; this module only completes it from
// one table (src/http/openapi-operations.ts): operation ids, tags, descriptions, and the media
// types, headers and descriptions of the answers as the server really sends them.

/** Answers with a problem body (`application/problem+json`, src/http/problem.ts), by status. */
const PROBLEMS: Record<string, string> = {
  400: 'Bad request: a field is missing or invalid; `errors` names it.',
  404: 'Not found, or not visible to this key.',
  409: 'Conflict with the resource’s current state.',
  412: 'Precondition failed: `If-Match` names another version.',
  413: 'The body is larger than the server accepts.',
  415: 'The body’s media type is not accepted.',
  422: 'The request is well-formed but cannot be carried out (a business rule).',
  429: 'Too many requests for this key; retry after `Retry-After` seconds.',
  503: 'The server is overloaded, starting, stopping or without its database; retry after `Retry-After` seconds.',
};

/** Answers with a plain-text body, as the spec has them. */
const PLAIN: Record<string, string> = {
  401: 'Unauthorized: the credentials are missing, unknown, expired or revoked.',
  403: 'Forbidden: the key lacks the scope, or may not act for a named customer number.',
};

const SUCCESS: Record<string, string> = {
  200: 'OK.',
  201: 'Created.',
  204: 'Done; no body.',
};

const header = (description: string, schema: object = { type: 'string' }) => ({ description, schema });
const RETRY_AFTER = header('Seconds to wait before retrying.', { type: 'integer', minimum: 0 });
const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The headers every answer, or every counted answer, carries: declared once, referred to. */
const COMMON_HEADERS = {
  'X-Request-Id': header(
    'The request’s id: the caller’s own when it sent a sane one, else generated; problem bodies give it as `traceId`, and the server’s log names it.',
  ),
  'X-RateLimit-Limit': header(
    'Requests a minute this key may make (at the token endpoint: this client address).',
    { type: 'integer', minimum: 0 },
  ),
  'X-RateLimit-Remaining': header('Requests left in the current minute.', { type: 'integer', minimum: 0 }),
  'X-RateLimit-Reset': header('Seconds until the count starts again.', { type: 'integer', minimum: 0 }),
};
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': ref('X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('X-RateLimit-Reset'),
};

type Json = Record<string, unknown>;
interface Operation extends Json {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: Json[];
  requestBody?: { content: Record<string, Json> };
  security?: Json[];
  responses: Record<string, { description?: string; content?: Record<string, Json>; headers?: Json }>;
}

const problemContent = () => ({
  'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
});

/** RFC 6749 §5.2's error object, what the token endpoint answers for every error. */
const oauthErrorContent = () => ({
  'application/json': {
    schema: {
      type: 'object',
      required: ['error'],
      properties: { error: { type: 'string' }, error_description: { type: 'string' } },
    },
  },
});

/** Completes one operation of the generated document in place. */
function completeOperation(key: string, operation: Operation): void {
  const entry = OPERATIONS[key];
  if (!entry) return; // the completeness test names it
  operation.operationId = entry.operationId;
  operation.tags = [entry.tag];
  if (!operation.summary && entry.summary) operation.summary = entry.summary;
  if (!operation.description && entry.description) operation.description = entry.description;

  const responses = operation.responses;
  // Any operation can be refused while the server is overloaded or without its database.
  responses[503] ??= {};
  if (operation.requestBody) {
    responses[413] ??= {};
    responses[415] ??= {};
  }
  // A path parameter that is no decodable text (`%FF`, NUL) is a 400 naming it, on every route.
  if (operation.parameters?.some((p) => p.in === 'path')) responses[400] ??= {};
  // The token endpoint is limited per address, and speaks OAuth for every refusal.
  if (entry.oauthErrors) responses[429] ??= {};
  for (const [status, response] of Object.entries(responses)) {
    if (entry.oauthErrors && (status in PROBLEMS || status in PLAIN)) {
      response.description = PROBLEMS[status] ?? PLAIN[status];
      response.content = oauthErrorContent();
      if (status === '429' || status === '503') response.headers = { 'Retry-After': RETRY_AFTER };
    } else if (status in PROBLEMS) {
      response.description = PROBLEMS[status];
      response.content = problemContent();
      if (status === '429' || status === '503') response.headers = { 'Retry-After': RETRY_AFTER };
    } else if (status in PLAIN) {
      response.description = PLAIN[status];
      response.content = { 'text/plain': { schema: { type: 'string' } } };
    } else if (!response.description || response.description === 'Default Response') {
      response.description = entry.success ?? SUCCESS[status] ?? 'OK.';
    }
  }
  // The creating answer: 201, or 200 where the original service documents 200 (`POST /v1/Webhooks`).
  const created = responses[201] ?? responses[200];
  if (created && entry.location) {
    created.headers = { ...created.headers, Location: header('The address of the created resource.') };
  }
  const ok = responses[200];
  if (entry.conditional && ok) {
    ok.headers = { ...ok.headers, ETag: header('The version of the answer, for `If-None-Match`.') };
    responses[304] = { description: 'Not modified: `If-None-Match` names the current `ETag`; no body.' };
    operation.parameters = [
      ...(operation.parameters ?? []),
      {
        in: 'header',
        name: 'If-None-Match',
        required: false,
        description: 'An `ETag` from an earlier answer: 304 without a body while it is current.',
        schema: { type: 'string' },
      },
    ];
  }
  if (entry.idempotent) {
    const written = {
      Location: header('The shipment’s address (`/v2/Shipment/{id}`).'),
      ETag: header('The shipment’s version, for `If-Match` on its next update.'),
      'Idempotent-Replayed': header(
        '`true` when the answer is the stored answer to an earlier request with the same `Idempotency-Key`.',
        { type: 'string', enum: ['true'] },
      ),
    };
    for (const status of ['200', '201']) {
      const answer = responses[status];
      if (answer) answer.headers = { ...answer.headers, ...written };
    }
    const conflict = responses[409];
    if (conflict) {
      conflict.headers = {
        ...conflict.headers,
        'Retry-After': header('With the same `Idempotency-Key` still being carried out: seconds to wait.', {
          type: 'integer',
          minimum: 0,
        }),
      };
    }
  }
  // Every answer names its request; a counted request's success says where its key stands.
  const counted =
    !(Array.isArray(operation.security) && operation.security.length === 0) || entry.oauthErrors;
  for (const [status, response] of Object.entries(responses)) {
    response.headers = {
      ...response.headers,
      'X-Request-Id': ref('X-Request-Id'),
      ...(counted && status.startsWith('2') ? RATE_LIMIT_HEADERS : {}),
    };
  }
  const examples = EXAMPLES[entry.operationId];
  if (examples?.request && operation.requestBody) {
    const media = operation.requestBody.content['application/json'];
    if (media) media.example = examples.request;
  }
  for (const [status, example] of Object.entries(examples?.responses ?? {})) {
    const media = responses[status]?.content?.['application/json'];
    if (media) media.example = example;
  }
}

/** A schema without its own examples: @fastify/swagger moves those of an answer's or a body's top to its media type. */
const withoutExamples = ({ examples: _, ...schema }: Record<string, unknown>) => schema;

/**
 * `value` with every schema `named` (src/http/schemas.ts) moved to `schemas` and referred to there,
 * innermost first; the component keeps the examples that one of its uses kept. Two different
 * schemas under one name are a mistake in the source.
 */
function hoistNamed(value: unknown, schemas: Record<string, Record<string, unknown>>): unknown {
  if (Array.isArray(value)) return value.map((v) => hoistNamed(v, schemas));
  if (value === null || typeof value !== 'object') return value;
  const { [COMPONENT]: name, ...rest } = value as Record<string, unknown>;
  const schema = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, hoistNamed(v, schemas)]));
  if (typeof name !== 'string') return schema;
  const known = schemas[name];
  if (known && !isDeepStrictEqual(withoutExamples(known), withoutExamples(schema))) {
    throw new Error(`Two different schemas are named ${name} in the OpenAPI document.`);
  }
  if (!known?.examples) schemas[name] = schema;
  return { $ref: `#/components/schemas/${name}` };
}

/** Completes the generated document: every operation, and the document-level fields linters expect. */
export function completeDocument(document: Json): Json {
  const named: Record<string, Record<string, unknown>> = {};
  const paths = hoistNamed(document.paths, named) as Record<string, Record<string, Operation>>;
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      completeOperation(operationKey(method, path), operation);
    }
  }
  const components = (document.components ?? {}) as Json;
  const schemas = { ...(components.schemas as Json | undefined), ...named };
  const sorted = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  return {
    ...document,
    paths,
    components: { ...components, schemas: sorted },
    tags: TAGS.map((t) => ({ ...t })),
  };
}

/** The @fastify/swagger options: the document's header, and the table applied to every route. */
export function swaggerOptions(): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Kolli — parcel shipping service',
        version: '1.0.0',
        description:
          'Booking, price calculation, invoice reports, shipment listing and webhooks for business customers of a Norwegian parcel carrier, with the companion interfaces (products, schedule, pickup points, postal codes, labels) and administration. Authenticate with `Authorization: Bearer <API key or access token>`. Errors answer `application/problem+json` (401 and 403: `text/plain`). A typed TypeScript client is in `sdk/`.',
        contact: { name: 'Kolli', url: 'https://github.com/kolli-shipping/kolli' },
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: '/', description: 'This server' }],
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key or an access token from POST /oauth/token.',
          },
          oauth2: {
            type: 'oauth2',
            description:
              'Client credentials: the API key’s id as `client_id`, the key as `client_secret`. The token has the key’s scopes and customers, whatever `scope` asks.',
            flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: {} } },
          },
        },
        headers: COMMON_HEADERS,
      },
      security: [{ bearer: [] }, { oauth2: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (documentObject) =>
      completeDocument(
        ('openapiObject' in documentObject ? documentObject.openapiObject : documentObject) as Json,
      ) as never,
  };
}

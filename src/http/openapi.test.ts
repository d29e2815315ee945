import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osloBergenBooking } from '../../test/factories';
import { bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import { completeDocument } from './openapi';
import { OPERATIONS, operationKey } from './openapi-operations';

// Issue 20: the served document is what client generators and Spectral expect — every operation
// named, tagged and described from one table, every answer with the media type really sent.

interface Response {
  description: string;
  content?: Record<string, { schema?: { $ref?: string; required?: string[] } }>;
  headers?: Record<string, unknown>;
}
interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: { in: string; name: string; schema?: { type?: string } }[];
  responses: Record<string, Response>;
}
interface Document {
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
}

let ctx: TestContext;
let doc: Document;
let operations: { key: string; op: Operation }[];

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => new Date('2026-11-23T09:00:00Z') });
  doc = json<Document>(await ctx.app.inject({ url: '/openapi.json' }));
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ key: operationKey(method, path), op })),
  );
});
afterAll(() => ctx.close());

describe('every operation', () => {
  test('has an entry in the operations table (src/http/openapi-operations.ts)', () => {
    expect(operations.length).toBeGreaterThan(50);
    expect(operations.map((o) => o.key).filter((k) => !OPERATIONS[k])).toEqual([]);
  });

  test('has a unique verb+noun operationId, one declared tag, a summary and a description', () => {
    const ids = operations.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const declared = new Set(doc.tags.map((t) => t.name));
    for (const { key, op } of operations) {
      expect(op.operationId, key).toMatch(
        /^(get|list|create|update|book|cancel|delete|replace|calculate|record|advance|test|revoke|load|withdraw|run|issue)[A-Z][A-Za-z0-9]*$/,
      );
      expect(op.tags?.length, key).toBe(1);
      expect(declared.has(op.tags?.[0] ?? ''), key).toBe(true);
      expect(op.summary, key).toBeTruthy();
      expect(op.description, key).toBeTruthy();
    }
  });

  test('declares answers with the media type sent and a named description', () => {
    for (const { key, op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        const where = `${key} ${status}`;
        expect(response.description, where).not.toBe('Default Response');
        expect(response.description, where).toBeTruthy();
        // The token endpoint answers every error as RFC 6749's object, as OAuth clients read it.
        if (OPERATIONS[key]?.oauthErrors && Number(status) >= 400) {
          expect(Object.keys(response.content ?? {}), where).toEqual(['application/json']);
          expect(response.content?.['application/json']?.schema?.required, where).toEqual(['error']);
          continue;
        }
        if (status === '401' || status === '403')
          expect(Object.keys(response.content ?? {}), where).toEqual(['text/plain']);
        if (['400', '404', '409', '412', '413', '415', '422', '429', '503'].includes(status)) {
          expect(response.content?.['application/problem+json']?.schema?.$ref, where).toBe(
            '#/components/schemas/Problem',
          );
          expect(Object.keys(response.content ?? {}), where).toEqual(['application/problem+json']);
        }
      }
      expect(op.responses['503'], key).toBeDefined();
      // A path parameter that is no decodable text is refused with a 400 naming it.
      if (op.parameters?.some((p) => p.in === 'path')) expect(op.responses['400'], key).toBeDefined();
    }
  });
});

test('a 201 that sends Location declares it, and the server sends it', async () => {
  const book = doc.paths['/Shipment/Update']?.post;
  expect(book?.responses['201']?.headers).toHaveProperty('Location');
  const key = await ctx.keyFor({ scopes: ['booking'] });
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: bearer(key),
    payload: osloBergenBooking(),
  });
  expect(res.statusCode).toBe(201);
  expect(res.headers.location).toBe(`/v2/Shipment/${json<{ ShipmentId: string }>(res).ShipmentId}`);
  // The original documents 200 for a webhook registration (CONTRACT §10); it still names the record.
  expect(doc.paths['/v1/Webhooks']?.post?.responses['200']?.headers).toHaveProperty('Location');
});

test('what every answer, a counted answer and a booking write send is declared, and really sent', async () => {
  // Declared: the request id on every answer, the key's count on a counted success.
  for (const { key, op } of operations) {
    for (const [status, response] of Object.entries(op.responses)) {
      expect(response.headers, `${key} ${status}`).toHaveProperty('X-Request-Id');
    }
  }
  const book = doc.paths['/Shipment/Update']?.post;
  for (const name of ['Location', 'ETag', 'Idempotent-Replayed', 'X-RateLimit-Remaining']) {
    expect(book?.responses['201']?.headers, name).toHaveProperty(name);
    expect(book?.responses['200']?.headers, name).toHaveProperty(name);
  }
  expect(book?.responses['409']?.headers).toHaveProperty('Retry-After');
  expect(doc.paths['/healthz']?.get?.responses['200']?.headers).not.toHaveProperty('X-RateLimit-Remaining');
  // Sent: a booking replayed under its Idempotency-Key.
  const key = await ctx.keyFor({ scopes: ['booking'] });
  const send = () =>
    ctx.app.inject({
      method: 'POST',
      url: '/Shipment/Update',
      headers: { ...bearer(key), 'idempotency-key': 'declared-headers' },
      payload: osloBergenBooking(),
    });
  await send();
  const replayed = await send();
  expect(replayed.statusCode).toBe(201);
  for (const name of [
    'location',
    'etag',
    'idempotent-replayed',
    'x-request-id',
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
  ]) {
    expect(replayed.headers, name).toHaveProperty(name);
  }
});

test('the token endpoint needs no credentials, and generators can run its client-credentials flow', () => {
  const full = doc as unknown as {
    security: Record<string, string[]>[];
    components: { securitySchemes: Record<string, { flows?: { clientCredentials?: { tokenUrl: string } } }> };
  };
  for (const path of ['/oauth/token', '/as/token.oauth2']) {
    expect((doc.paths[path]?.post as { security?: unknown } | undefined)?.security, path).toEqual([]);
  }
  expect(full.components.securitySchemes.oauth2?.flows?.clientCredentials?.tokenUrl).toBe('/oauth/token');
  expect(full.security).toEqual([{ bearer: [] }, { oauth2: [] }]);
  // An operation that names its own requirement offers the token flow too.
  for (const { key, op } of operations) {
    const own = (op as { security?: Record<string, string[]>[] }).security;
    if (own && own.length > 0) expect(own, key).toContainEqual({ oauth2: [] });
  }
});

test('401 and 403 are really sent as text/plain, problems as application/problem+json', async () => {
  const unauthorized = await ctx.app.inject({ url: '/v2/Shipment/70900010000000017' });
  expect(unauthorized.statusCode).toBe(401);
  expect(unauthorized.headers['content-type']).toMatch(/^text\/plain/);
  const key = await ctx.keyFor({ scopes: ['price'] });
  const forbidden = await ctx.app.inject({ url: '/v2/Shipment/70900010000000017', headers: bearer(key) });
  expect(forbidden.statusCode).toBe(403);
  expect(forbidden.headers['content-type']).toMatch(/^text\/plain/);
  const reader = await ctx.keyFor({ scopes: ['shipments'] });
  const missing = await ctx.app.inject({ url: '/v2/Shipment/70900010000000017', headers: bearer(reader) });
  expect(missing.statusCode).toBe(404);
  expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
});

test('conditional reads declare ETag, 304 and If-None-Match', () => {
  const read = doc.paths['/v2/Shipment/{shipmentid}']?.get;
  expect(read?.responses['200']?.headers).toHaveProperty('ETag');
  expect(read?.responses['304']).toBeDefined();
  expect(read?.parameters?.some((p) => p.in === 'header' && p.name === 'If-None-Match')).toBe(true);
});

test('the query parameters the spec types as int are integers, so generated clients send numbers', () => {
  const typeOf = (path: string, name: string) =>
    doc.paths[path]?.get?.parameters?.find((p) => p.in === 'query' && p.name === name)?.schema?.type;
  for (const path of ['/v1/Invoice/GetInvoiceDetails', '/v3/Invoice/GetInvoiceReportByInvoicenr']) {
    expect([typeOf(path, 'Customernr'), typeOf(path, 'Invoicenr')]).toEqual(['integer', 'integer']);
  }
  expect(typeOf('/v1/shipment/list', 'customerid')).toBe('integer');
  // The reports' Customernr is a string in the spec, and a postal code keeps its leading zero.
  expect(typeOf('/v2/Invoice/GetInvoiceReport', 'Customernr')).toBe('string');
  expect(typeOf('/v1/shipment/list', 'postalcode')).toBe('string');
});

test('the spec’s resources are named components, and every use refers to them', () => {
  const schemas = (doc as unknown as { components: { schemas: Record<string, unknown> } }).components.schemas;
  for (const name of [
    'ShipmentRecord',
    'ShipmentUpdateRequest',
    'PriceResultV3',
    'InvoiceReportV2',
    'WebhookRecord',
  ]) {
    expect(schemas[name], name).toMatchObject({ type: 'object' });
  }
  const answer = (path: string, method = 'get', status = '200') =>
    doc.paths[path]?.[method]?.responses[status]?.content?.['application/json']?.schema as unknown;
  expect(answer('/v2/Shipment/{shipmentid}')).toEqual({
    type: 'array',
    items: { $ref: '#/components/schemas/ShipmentRecord' },
  });
  expect(answer('/Shipment/{shipmentid}')).toEqual(answer('/v2/Shipment/{shipmentid}'));
  expect(answer('/v3/Calculate/')).toEqual({ $ref: '#/components/schemas/PriceResultV3' });
  expect(JSON.stringify(doc)).not.toContain('x-component');
});

test('two different schemas under one name are refused, and a use that lost its examples keeps them', () => {
  const use = (schema: object) => ({
    get: { responses: { 200: { content: { 'application/json': { schema } } } } },
  });
  const named = { 'x-component': 'Thing', type: 'object', properties: { a: { type: 'string' } } };
  const document = (second: object) => ({
    openapi: '3.1.0',
    paths: { '/v1/products': use({ ...named, examples: [{ a: 'x' }] }), '/v1/services': use(second) },
  });
  const done = completeDocument(document(named)) as { components: { schemas: Record<string, unknown> } };
  expect(done.components.schemas.Thing).toEqual({ ...withoutName(named), examples: [{ a: 'x' }] });
  expect(() => completeDocument(document({ ...named, required: ['a'] }))).toThrow(/Thing/);
});

const withoutName = ({ 'x-component': _, ...schema }: Record<string, unknown>) => schema;

test('the spec’s /v3/Calculate/ is documented as the spec has it, and both spellings answer', async () => {
  expect(doc.paths['/v3/Calculate/']?.get?.operationId).toBe('getPriceV3');
  const key = await ctx.keyFor({ scopes: ['price'] });
  const q = 'Customernr=1000&SenderZip=0154&ReceiverZip=5003&Weight=10&ProductCode=43';
  for (const url of [`/v3/Calculate?${q}`, `/v3/Calculate/?${q}`]) {
    expect((await ctx.app.inject({ url, headers: bearer(key) })).statusCode).toBe(200);
  }
});

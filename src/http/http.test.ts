import net, { type AddressInfo } from 'node:net';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';

const PROBLEM_FIELDS = ['errors', 'state', 'status', 'title', 'traceId', 'type'];
const admin = bearer(ADMIN_KEY);

let ctx: TestContext;
let key: string;

beforeAll(async () => {
  ctx = await buildTestApp({
    env: { KOLLI_BODY_LIMIT_BYTES: '2048' },
    extraRoutes: (app) => {
      app.get('/test/boom', async () => {
        throw new Error('secret internal detail');
      });
      app.get(
        '/test/echo',
        {
          schema: {
            querystring: Type.Object({
              Customernr: Type.String(),
              Service: Type.Optional(Type.Array(Type.String())),
              Weight: Type.Optional(Type.Integer({ maximum: 99999 })),
            }),
          },
        },
        async (request) => request.query,
      );
    },
  });
  key = await ctx.keyFor({ scopes: ['price'] });
});
afterAll(() => ctx.close());

function expectProblem(res: Awaited<ReturnType<typeof ctx.app.inject>>, status: number) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = json(res);
  expect(body.state).toBe(status);
  expect(body.status).toBe(status);
  expect(body.traceId).toBe(res.headers['x-request-id']);
  expect(typeof body.type).toBe('string');
  expect(typeof body.title).toBe('string');
  return body;
}

describe('problem answers', () => {
  test('schema violations list every field with the spec body shape', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/customers',
      headers: admin,
      payload: {
        CustomerNr: 'abc',
        Agreement: { FreightDiscountPercent: 120, SpecialUnitCodes: ['51', '12'] },
      },
    });
    const body = expectProblem(res, 400);
    expect(Object.keys(body).sort()).toEqual(PROBLEM_FIELDS);
    expect(body.type).toBe('https://tools.ietf.org/html/rfc7231#section-6.5.1');
    expect(body.title).toBe('One or more validation errors occurred.');
    expect(Object.keys(body.errors as object).sort()).toEqual([
      'Agreement.FreightDiscountPercent',
      'Agreement.SpecialUnitCodes[1]',
      'CustomerNr',
      'Name',
    ]);
    expect((body.errors as Record<string, string[]>).Name).toEqual(['The Name field is required.']);
  });

  test('a string that is not a number where a number belongs in a JSON body is a 400', async () => {
    // A numeric string ("10") binds as the number (CONTRACT §2); other text is refused.
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/customers',
      headers: admin,
      payload: { CustomerNr: '77', Name: 'X', Agreement: { FreightDiscountPercent: 'ten' } },
    });
    const body = expectProblem(res, 400);
    expect(body.errors).toEqual({
      'Agreement.FreightDiscountPercent': ['The FreightDiscountPercent field must be a number.'],
    });
  });

  test('malformed JSON is a 400 problem on the request', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/customers',
      headers: { ...admin, 'content-type': 'application/json' },
      payload: '{"CustomerNr": ',
    });
    const body = expectProblem(res, 400);
    expect(Object.keys(body).sort()).toEqual(PROBLEM_FIELDS);
    expect(Object.keys(body.errors as object)).toEqual(['request']);
  });

  test('a body that is not an object is a 400 problem on the request', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/customers',
      headers: admin,
      payload: [1, 2],
    });
    expect(Object.keys(expectProblem(res, 400).errors as object)).toEqual(['request']);
  });

  test('an unknown path is a 404 problem', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v9/nothing', headers: bearer(key) });
    expectProblem(res, 404);
  });

  test('a body over the limit is a 413 problem', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/customers',
      headers: admin,
      payload: { CustomerNr: '5', Name: 'x'.repeat(4000) },
    });
    expectProblem(res, 413);
  });

  test('a wrong content type is a 415 problem', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/customers',
      headers: { ...admin, 'content-type': 'text/csv' },
      payload: 'CustomerNr,Name\n5,X',
    });
    expectProblem(res, 415);
  });

  test('a server fault is a 500 problem with the trace id and no internals', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/test/boom', headers: bearer(key) });
    const body = expectProblem(res, 500);
    expect(res.body).not.toContain('secret internal detail');
    expect(body).not.toHaveProperty('stack');
  });

  test('the caller’s X-Request-Id becomes the trace id', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/v9/nothing',
      headers: { ...bearer(key), 'x-request-id': 'abc-123' },
    });
    expect(res.headers['x-request-id']).toBe('abc-123');
    expect(json(res).traceId).toBe('abc-123');
  });
});

describe('case-insensitive binding', () => {
  test('JSON property names bind whatever their case', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/customers',
      headers: admin,
      payload: { customernr: '4242', NAME: 'Lowercase AS', agreement: { freightdiscountpercent: 5 } },
    });
    expect(res.statusCode).toBe(201);
    expect(json(res)).toMatchObject({
      CustomerNr: '4242',
      Name: 'Lowercase AS',
      Agreement: { FreightDiscountPercent: 5 },
    });
  });

  test('query parameter names bind whatever their case, and a single value is a list of one', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/test/echo?customernr=1000&SERVICE=16&weight=12',
      headers: bearer(key),
    });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ Customernr: '1000', Service: ['16'], Weight: 12 });
  });

  test('repeated query parameters form a list; errors name the spec spelling', async () => {
    const ok = await ctx.app.inject({
      method: 'GET',
      url: '/test/echo?Customernr=1&service=16&service=35',
      headers: bearer(key),
    });
    expect(json(ok).Service).toEqual(['16', '35']);
    const bad = await ctx.app.inject({
      method: 'GET',
      url: '/test/echo?weight=100000',
      headers: bearer(key),
    });
    expect(json(bad).errors).toEqual({
      Customernr: ['The Customernr field is required.'],
      Weight: ['The Weight field must be at most 99999.'],
    });
  });

  test('path segments match whatever their case', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/V1/POSTALCODES/0150', headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    expect(json(res).Place).toBe('OSLO');
  });
});

describe('operability', () => {
  test('health, readiness and metrics need no key', async () => {
    expect(json(await ctx.app.inject({ url: '/healthz' }))).toEqual({ status: 'ok' });
    expect(json(await ctx.app.inject({ url: '/readyz' }))).toEqual({ status: 'ready' });
    await ctx.app.inject({ url: '/v1/postalcodes/0150', headers: bearer(key) });
    const metrics = await ctx.app.inject({ url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/v1\/postalcodes\/:postalCode",status_code="200"\} \d+/,
    );
    expect(metrics.body).toContain('process_cpu_user_seconds_total');
  });

  test('API answers carry the REST security headers, and nothing meant for HTML', async () => {
    const res = await ctx.app.inject({ url: '/healthz' });
    expect(res.headers).toMatchObject({
      'content-security-policy': "default-src 'none';frame-ancestors 'none'",
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'cross-origin-resource-policy': 'same-site',
      'cache-control': 'no-store',
    });
    for (const htmlOnly of [
      'cross-origin-opener-policy',
      'origin-agent-cluster',
      'x-xss-protection',
      'x-dns-prefetch-control',
    ])
      expect(res.headers).not.toHaveProperty(htmlOnly);
  });

  test('the docs page gets the document headers, without a CSP for its inline bootstrap', async () => {
    const res = await ctx.app.inject({ url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers).toMatchObject({
      'x-frame-options': 'SAMEORIGIN',
      'cross-origin-opener-policy': 'same-origin',
    });
    expect(res.headers).not.toHaveProperty('content-security-policy');
  });

  test('a route that sets its own caching keeps it', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: { grant_type: 'nonsense' },
    });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  test('the OpenAPI document describes the routes, the bearer scheme and the problem shape', async () => {
    const doc = json<{
      openapi: string;
      paths: Record<string, unknown>;
      components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
    }>(await ctx.app.inject({ url: '/openapi.json' }));
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths).toHaveProperty('/v1/postalcodes/{postalCode}');
    expect(doc.paths).toHaveProperty('/oauth/token');
    expect(doc.components.securitySchemes).toHaveProperty('bearer');
    expect(doc.components.schemas).toHaveProperty('Problem');
  });

  test('the docs page is served without a key', async () => {
    const res = await ctx.app.inject({ url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('/openapi.json');
  });
});

describe('shutting down', () => {
  test('a request that arrives on an open connection while the app closes is a 503 problem', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inFlight = () => {};
    const entered = new Promise<void>((resolve) => {
      inFlight = resolve;
    });
    let closingStarted = () => {};
    const isClosing = new Promise<void>((resolve) => {
      closingStarted = resolve;
    });
    const closing = await buildTestApp({
      extraRoutes: (app) => {
        // Told when the preClose hooks run, the app's own among them (which marks it closing).
        app.addHook('preClose', (done) => {
          closingStarted();
          done();
        });
        app.get('/test/slow', { config: { public: true } }, async () => {
          inFlight();
          await gate;
          return { done: true };
        });
      },
    });
    await closing.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = closing.app.server.address() as AddressInfo;
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (d: Buffer) => received.push(d));
    const ended = new Promise<string>((resolve) =>
      socket.on('close', () => resolve(Buffer.concat(received).toString())),
    );
    socket.write('GET /test/slow HTTP/1.1\r\nhost: kolli\r\n\r\n');
    await entered;
    // The app closes with the first request in flight; the next comes on the same connection.
    const closed = closing.close();
    await isClosing;
    socket.write('GET /healthz HTTP/1.1\r\nhost: kolli\r\n\r\n');
    release();
    const answers = await ended;
    await closed;
    const [first, second] = answers.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toMatch(/content-type: application\/problem\+json/i);
    expect(second).toMatch(/retry-after: 5/i);
    expect(second).toMatch(/connection: close/i);
    const body = JSON.parse(second?.slice(second.indexOf('\r\n\r\n') + 4) ?? '') as Record<string, unknown>;
    expect(body).toMatchObject({ status: 503, detail: 'The server is shutting down; try again.' });
    expect(body.traceId).toBe(/x-request-id: (\S+)/i.exec(second ?? '')?.[1]);
  });
});

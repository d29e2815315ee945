import { Agent, request } from 'node:http';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ADMIN_KEY,
  bearer,
  buildTestApp,
  createTestDatabase,
  json,
  type TestContext,
} from '../../test/helpers';
import { buildApp, createServices } from '../app';
import { loadConfig } from '../config';
import { createAuthService } from './service';

let ctx: TestContext;
let customerKey: string;

beforeAll(async () => {
  ctx = await buildTestApp();
  customerKey = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['price', 'booking'] });
});
afterAll(() => ctx.close());

const get = (url: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url, headers });

function expectPlain(res: Awaited<ReturnType<typeof get>>, status: 401 | 403) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^text\/plain/);
  expect(res.body.length).toBeGreaterThan(0);
}

describe('401 without a valid credential', () => {
  test.each([['/v1/postalcodes/0150'], ['/v1/customers/1000'], ['/admin/customers']])(
    '%s without a key',
    async (url) => {
      expectPlain(await get(url), 401);
    },
  );

  test('an unknown key', async () => {
    expectPlain(await get('/v1/postalcodes/0150', bearer('kolli_not-a-real-key')), 401);
  });

  test('a malformed Authorization header', async () => {
    expectPlain(await get('/v1/postalcodes/0150', { authorization: 'Basic abc' }), 401);
  });

  test('a revoked key, at once on the instance that revoked it', async () => {
    const { Id, Key } = await ctx.services.auth.createKey({
      name: 'soon revoked',
      customerNrs: ['1000'],
      scopes: ['price'],
    });
    expect((await get('/v1/postalcodes/0150', bearer(Key))).statusCode).toBe(200);
    const res = await ctx.app.inject({
      method: 'DELETE',
      url: `/admin/api-keys/${Id}`,
      headers: bearer(ADMIN_KEY),
    });
    expect(res.statusCode).toBe(204);
    expectPlain(await get('/v1/postalcodes/0150', bearer(Key)), 401);
  });
});

// Keep-alive clients send the same key on every request; the connection remembers what it resolved
// to for a moment (auth/plugin.ts), and must not remember past a revocation or a change of key.
describe('over one kept-alive connection', () => {
  let agent: Agent;
  let base: string;
  beforeAll(async () => {
    base = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
  });
  afterAll(() => agent.destroy());

  /** A GET on the shared connection: its status, and whether it went over an earlier request's socket. */
  const send = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
      const req = request(`${base}${path}`, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
      });
      req.on('error', reject);
      req.end();
    });

  test('a key revoked on this instance is refused at once on the connection that used it', async () => {
    const { Id, Key } = await ctx.services.auth.createKey({
      name: 'kept alive',
      customerNrs: ['1000'],
      scopes: ['price'],
    });
    await send('/v1/postalcodes/0150', bearer(Key));
    expect(await send('/v1/postalcodes/0150', bearer(Key))).toEqual({ status: 200, reused: true });
    await ctx.services.auth.revokeKey(Id);
    expect(await send('/v1/postalcodes/0150', bearer(Key))).toEqual({ status: 401, reused: true });
  });

  test('each request is judged by the key it sends, not by the one before it', async () => {
    const pricing = await ctx.keyFor({ scopes: ['price'] });
    const labels = await ctx.keyFor({ scopes: ['labels'] });
    const price = '/v3/Calculate/?Customernr=1000&SenderZip=0150&ReceiverZip=5003&Weight=2&ProductCode=43';
    await send(price, bearer(pricing));
    expect(await send(price, bearer(pricing))).toEqual({ status: 200, reused: true });
    expect(await send(price, bearer(labels))).toEqual({ status: 403, reused: true });
    expect(await send(price)).toEqual({ status: 401, reused: true });
    expect(await send(price, bearer('kolli_not-a-real-key'))).toEqual({ status: 401, reused: true });
    expect(await send(price, bearer(pricing))).toEqual({ status: 200, reused: true });
  });

  test('a key revoked through another instance stops working within 5 seconds', async () => {
    const { Id, Key: key } = await ctx.services.auth.createKey({
      name: 'elsewhere',
      customerNrs: ['1000'],
      scopes: ['price'],
    });
    expect((await send('/v1/postalcodes/0150', bearer(key))).status).toBe(200);
    // A second service on the same database stands for another instance with its own cache.
    const other = createAuthService({ db: ctx.database.db, config: ctx.config });
    await other.revokeKey(Id);
    const started = Date.now();
    let answer = { status: 200, reused: true };
    while (answer.status === 200 && Date.now() - started < 6000) {
      answer = await send('/v1/postalcodes/0150', bearer(key));
      if (answer.status === 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(answer).toEqual({ status: 401, reused: true });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('the cache-first path', () => {
  test('answers from the cache only what it knows: keys seen, the admin key; never a token', async () => {
    const auth = ctx.services.auth;
    const { Key } = await auth.createKey({ name: 'cache', customerNrs: ['1000'], scopes: ['price'] });
    expect(auth.cachedAccount(Key)).toBeUndefined();
    const account = await auth.authenticate(Key);
    expect(account?.scopes.has('price')).toBe(true);
    expect(auth.cachedAccount(Key)).toBe(account);
    expect(auth.cachedAccount(ADMIN_KEY)?.scopes.has('admin')).toBe(true);
    expect(await auth.authenticate('kolli_unknown')).toBeNull();
    expect(auth.cachedAccount('kolli_unknown')).toBeNull();
    expect(auth.cachedAccount('a.b.c')).toBeUndefined();
  });

  test('a key the cache has not seen is still admitted (through the database)', async () => {
    const { Key } = await ctx.services.auth.createKey({
      name: 'fresh',
      customerNrs: ['1000'],
      scopes: ['price'],
    });
    expect(ctx.services.auth.cachedAccount(Key)).toBeUndefined();
    expect((await get('/v1/postalcodes/0150', bearer(Key))).statusCode).toBe(200);
  });
});

describe('403 for a known key without the right', () => {
  test('missing scope', async () => {
    expectPlain(await get('/admin/customers', bearer(customerKey)), 403);
  });

  test('a customer number the key may not act for', async () => {
    await ctx.keyFor({ customerNrs: ['2000'], scopes: ['price'] });
    expectPlain(await get('/v1/customers/2000', bearer(customerKey)), 403);
    expect((await get('/v1/customers/1000', bearer(customerKey))).statusCode).toBe(200);
  });

  test('an admin key acts for every customer', async () => {
    expect((await get('/v1/customers/2000', bearer(ADMIN_KEY))).statusCode).toBe(200);
  });
});

describe('OAuth2 token endpoint', () => {
  let keyId: string;
  let key: string;

  beforeAll(async () => {
    const created = await ctx.services.auth.createKey({
      name: 'oauth',
      customerNrs: ['1000'],
      scopes: ['price'],
    });
    keyId = created.Id;
    key = created.Key;
  });

  const token = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    ctx.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(form).toString(),
    });

  test('password grant issues a bearer token that carries the key’s rights', async () => {
    const res = await token({ grant_type: 'password', username: keyId, password: key });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = json<{ access_token: string; token_type: string; expires_in: number }>(res);
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(3600);
    expect((await get('/v1/customers/1000', bearer(body.access_token))).statusCode).toBe(200);
    expectPlain(await get('/v1/customers/2000', bearer(body.access_token)), 403);
    expectPlain(await get('/admin/customers', bearer(body.access_token)), 403);
    // The token says what it may do, as its key does.
    expect(json(await get('/v1/me', bearer(body.access_token)))).toEqual(
      json(await get('/v1/me', bearer(key))),
    );
  });

  test('client_credentials grant, in the form and as HTTP Basic', async () => {
    const form = await token({ grant_type: 'client_credentials', client_id: keyId, client_secret: key });
    expect(form.statusCode).toBe(200);
    const basic = await token(
      { grant_type: 'client_credentials' },
      { authorization: `Basic ${Buffer.from(`${keyId}:${key}`).toString('base64')}` },
    );
    expect(basic.statusCode).toBe(200);
  });

  test('POST /as/token.oauth2 (the original service’s token path) is the same endpoint, with the original’s form', async () => {
    // The original's developer pages send client_id=norway-customer-api with the password grant.
    const form = { client_id: 'norway-customer-api', grant_type: 'password', username: keyId, password: key };
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/as/token.oauth2',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = json<{ access_token: string; token_type: string }>(res);
    expect(body.token_type).toBe('Bearer');
    expect((await get('/v1/customers/1000', bearer(body.access_token))).statusCode).toBe(200);
    const wrong = await ctx.app.inject({
      method: 'POST',
      url: '/as/token.oauth2',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ ...form, password: 'wrong' }).toString(),
    });
    expect(wrong.statusCode).toBe(400);
    expect(json(wrong).error).toBe('invalid_grant');
  });

  test("a body the API's layers refuse is RFC 6749's invalid_request too, not a problem", async () => {
    const post = (payload: string, type: string) =>
      ctx.app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': type }, payload });
    const form = 'application/x-www-form-urlencoded';
    for (const [res, status, described] of [
      [await post('grant_type=password&grant_type=password', form), 400, /grant_type/],
      [await post('{"grant_type":', 'application/json'), 400, /not valid JSON/],
      [await post('grant_type=password', 'text/plain'), 415, /x-www-form-urlencoded/],
    ] as const) {
      expect(res.statusCode).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(json(res)).toEqual({
        error: 'invalid_request',
        error_description: expect.stringMatching(described),
      });
    }
  });

  test('a wrong password is invalid_grant (400)', async () => {
    const res = await token({ grant_type: 'password', username: keyId, password: 'wrong' });
    expect(res.statusCode).toBe(400);
    expect(json(res).error).toBe('invalid_grant');
  });

  test('a wrong client secret is invalid_client (401)', async () => {
    const res = await token({ grant_type: 'client_credentials', client_id: keyId, client_secret: 'wrong' });
    expect(res.statusCode).toBe(401);
    expect(json(res).error).toBe('invalid_client');
  });

  test('malformed percent-encoding in HTTP Basic client credentials is invalid_client (401), not a 500', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('%:x').toString('base64')}`,
      },
      payload: 'grant_type=client_credentials',
    });
    expect(res.statusCode).toBe(401);
    expect(json(res).error).toBe('invalid_client');
  });

  test('an unknown grant type is unsupported_grant_type (400)', async () => {
    const res = await token({ grant_type: 'authorization_code', code: 'x' });
    expect(res.statusCode).toBe(400);
    expect(json(res).error).toBe('unsupported_grant_type');
  });

  test('a forged or tampered token is 401', async () => {
    const body = json<{ access_token: string }>(
      await token({ grant_type: 'password', username: keyId, password: key }),
    );
    const [h, p, s] = body.access_token.split('.');
    const tampered = `${h}.${p}.${s?.slice(0, -2)}xx`;
    expectPlain(await get('/v1/customers/1000', bearer(tampered)), 401);
  });

  test('tokens of a revoked key stop working', async () => {
    const created = await ctx.services.auth.createKey({
      name: 'short',
      customerNrs: ['1000'],
      scopes: ['price'],
    });
    const body = json<{ access_token: string }>(
      await token({ grant_type: 'password', username: created.Id, password: created.Key }),
    );
    await ctx.services.auth.revokeKey(created.Id);
    expectPlain(await get('/v1/customers/1000', bearer(body.access_token)), 401);
  });
});

describe('failed authentications per address (KOLLI_AUTH_FAILURES_PER_MINUTE)', () => {
  test('an address past the limit is refused every credential it had not used: a right guess too', async () => {
    const guarded = await buildTestApp({ env: { KOLLI_AUTH_FAILURES_PER_MINUTE: '3' } });
    try {
      const good = await guarded.keyFor({ scopes: ['price'] });
      const unseen = await guarded.keyFor({ scopes: ['price'] });
      const call = (key: string, remoteAddress = '203.0.113.7') =>
        guarded.app.inject({ url: '/v1/postalcodes/0150', remoteAddress, headers: bearer(key) });
      expect((await call(good)).statusCode).toBe(200);
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push((await call(`wrong-key-${i}-0123456789abcdef`)).statusCode);
      expect(codes).toEqual([401, 401, 401, 429]);
      // The guess that would be right is refused as the wrong ones are: guessing learns nothing.
      const refused = await call(unseen);
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // The token endpoint counts and refuses with them.
      const token = await guarded.app.inject({
        method: 'POST',
        url: '/oauth/token',
        remoteAddress: '203.0.113.7',
        payload: { grant_type: 'password', username: 'x', password: 'y' },
      });
      expect(token.statusCode).toBe(429);
      // A key the address used before goes on working, and other addresses are not affected.
      expect((await call(good)).statusCode).toBe(200);
      expect((await call(unseen, '198.51.100.9')).statusCode).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  test('off unless set: behind a balancer without KOLLI_TRUST_PROXY all clients are one address', async () => {
    const codes = [];
    for (let i = 0; i < 70; i++)
      codes.push((await get('/v1/postalcodes/0150', bearer(`no-${i}-0123456789abcdef`))).statusCode);
    expect(new Set(codes)).toEqual(new Set([401]));
  });
});

// Two app processes on one database, as two hosts of a fleet: on PostgreSQL a guesser's failures
// count once for both, so more hosts give no more tries.
describe.runIf(process.env.KOLLI_TEST_DB === 'postgres')('failed authentications across processes', () => {
  test('failures on either host count together; past the limit both refuse', async () => {
    const database = await createTestDatabase();
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      KOLLI_ADMIN_KEY: ADMIN_KEY,
      KOLLI_AUTH_FAILURES_PER_MINUTE: '4',
    });
    const hosts = [
      await buildApp({ config, database, services: createServices(database, config) }),
      await buildApp({ config, database, services: createServices(database, config) }),
    ];
    try {
      const codes: number[] = [];
      for (let i = 0; i < 6; i++) {
        const host = hosts[i % 2];
        if (!host) throw new Error('no host');
        const res = await host.inject({
          url: '/v1/postalcodes/0150',
          remoteAddress: '203.0.113.44',
          headers: bearer(`fleet-guess-${i}-0123456789abcdef`),
        });
        codes.push(res.statusCode);
      }
      // Counted per process, each host would have allowed 4: eight 401s before a 429.
      expect(codes).toEqual([401, 401, 401, 401, 429, 429]);
    } finally {
      for (const host of hosts) await host.close();
      await database.dispose();
    }
  });
});

describe('rate limiting per key', () => {
  test('an exhausted key gets 429 with Retry-After; another key is unaffected', async () => {
    const limited = await buildTestApp({ env: { KOLLI_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const a = await limited.keyFor({ scopes: ['price'] });
      const b = await limited.keyFor({ scopes: ['price'] });
      const call = (key: string) => limited.app.inject({ url: '/v1/postalcodes/0150', headers: bearer(key) });
      for (let i = 0; i < 3; i++) expect((await call(a)).statusCode).toBe(200);
      const blocked = await call(a);
      expect(blocked.statusCode).toBe(429);
      expect(blocked.headers['retry-after']).toBeDefined();
      expect(blocked.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(json(blocked).status).toBe(429);
      expect((await call(b)).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });

  test('answers say the limit and what is left; public reads are not limited, the token endpoint is', async () => {
    const limited = await buildTestApp({ env: { KOLLI_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const key = await limited.keyFor({ scopes: ['price'] });
      const first = await limited.app.inject({ url: '/v1/postalcodes/0150', headers: bearer(key) });
      expect(first.headers['x-ratelimit-limit']).toBe('3');
      expect(first.headers['x-ratelimit-remaining']).toBe('2');
      expect(Number(first.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
      for (let i = 0; i < 5; i++)
        expect((await limited.app.inject({ url: '/healthz' })).statusCode).toBe(200);
      const token = () =>
        limited.app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 'nonsense' } });
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await token());
      expect(answers.map((r) => r.statusCode)).toEqual([400, 400, 400, 429]);
      expect(json(answers[3] as LightMyRequestResponse)).toEqual({
        error: 'temporarily_unavailable',
        error_description: expect.stringMatching(/^Rate limit exceeded/),
      });
    } finally {
      await limited.close();
    }
  });

  test('behind a trusted proxy the token endpoint counts each client address apart', async () => {
    // Without KOLLI_TRUST_PROXY every client behind a balancer is the balancer's one address.
    const limited = await buildTestApp({
      env: { KOLLI_RATE_LIMIT_PER_MINUTE: '2', KOLLI_TRUST_PROXY: '127.0.0.1' },
    });
    try {
      const token = (client: string) =>
        limited.app.inject({
          method: 'POST',
          url: '/oauth/token',
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': client },
          payload: { grant_type: 'nonsense' },
        });
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push((await token('203.0.113.7')).statusCode);
      expect(codes).toEqual([400, 400, 429]);
      expect((await token('198.51.100.9')).statusCode).toBe(400);
    } finally {
      await limited.close();
    }
  });
});

describe('GET /v1/me', () => {
  test('the key in use: its id, name, customers and scopes; an admin key lists no customers', async () => {
    const mine = json<{ KeyId: string; Name: string; CustomerNrs: string[]; Scopes: string[] }>(
      await get('/v1/me', bearer(customerKey)),
    );
    expect(mine).toMatchObject({ CustomerNrs: ['1000'], Scopes: ['booking', 'price'] });
    expect(mine.KeyId).toMatch(/^key_/);
    expect(json(await get('/v1/me', bearer(ADMIN_KEY)))).toMatchObject({
      CustomerNrs: [],
      Scopes: ['admin'],
    });
    expectPlain(await get('/v1/me', {}), 401);
  });
});

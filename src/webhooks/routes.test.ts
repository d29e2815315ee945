import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import { webhooks } from './tables';
import { insertShipment, type Receiver, startReceiver } from './test-support';

// Two apps: `open` allows targets on 127.0.0.1 (KOLLI_WEBHOOK_ALLOW_PRIVATE=1, as in local testing),
// `closed` is the production setting.
let open: TestContext;
let closed: TestContext;
let key: string; // customer 1000
let otherKey: string; // customer 2000
let closedKey: string;
let receiver: Receiver;
let answer = 200;

const SHIPMENT = '70900010000000018';
const FOREIGN_SHIPMENT = '70900010000000025';
const CANCELLED_SHIPMENT = '70900010000000032';

beforeAll(async () => {
  [open, closed] = await Promise.all([
    // This file registers many webhooks on customer 1000; the limit has its own test below.
    buildTestApp({ env: { KOLLI_WEBHOOK_ALLOW_PRIVATE: '1', KOLLI_WEBHOOKS_PER_EVENT_VALUE: '1000' } }),
    buildTestApp(),
  ]);
  key = await open.keyFor({ customerNrs: ['1000'], scopes: ['webhooks'] });
  otherKey = await open.keyFor({ customerNrs: ['2000'], scopes: ['webhooks'] });
  closedKey = await closed.keyFor({ customerNrs: ['1000'], scopes: ['webhooks'] });
  const db = open.database.db;
  await insertShipment(db, {
    customerNr: '1000',
    shipmentId: SHIPMENT,
    parcelIds: ['370900010000000017', 'MY-PARCEL-1'],
  });
  await insertShipment(db, { customerNr: '2000', shipmentId: FOREIGN_SHIPMENT, parcelIds: ['FOREIGN-1'] });
  await insertShipment(db, {
    customerNr: '1000',
    shipmentId: CANCELLED_SHIPMENT,
    parcelIds: ['GONE-1'],
    cancelled: true,
  });
  receiver = await startReceiver(() => ({ status: answer }));
});
afterAll(async () => {
  await receiver.close();
  await Promise.all([open.close(), closed.close()]);
});

const valid = (over: Record<string, unknown> = {}) => ({
  eventValue: '1000',
  eventValueType: 3,
  url: `${receiver.url}/hooks`,
  secret: 'a-shared-secret',
  ...over,
});

const create = (body: unknown, k = key, ctx = open) =>
  ctx.app.inject({ method: 'POST', url: '/v1/Webhooks', headers: bearer(k), payload: body as object });

const createOk = async (over: Record<string, unknown> = {}, k = key) => {
  const res = await create(valid(over), k);
  expect(res.statusCode, res.body).toBe(200);
  return json<Record<string, unknown> & { uuid: string }>(res);
};

const errorsOf = (body: string) => (JSON.parse(body) as { errors: Record<string, string[]> }).errors;

describe('GET /v1/Webhooks/{webhookId} (the spec operation)', () => {
  test('answers the webhook record with exactly the spec fields', async () => {
    const created = await createOk({ customHeaders: '{"X-Api-Key":"abc"}' });
    const res = await open.app.inject({ url: `/v1/Webhooks/${created.uuid}`, headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    const record = json(res);
    expect(Object.keys(record).sort()).toEqual(
      ['customHeaders', 'eventValue', 'eventValueType', 'expires', 'secret', 'url', 'uuid'].sort(),
    );
    expect(record).toMatchObject({
      uuid: created.uuid,
      eventValue: '1000',
      eventValueType: 3,
      url: `${receiver.url}/hooks`,
      customHeaders: '{"X-Api-Key":"abc"}',
      secret: 'a-shared-secret',
    });
    expect(record.expires).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
  });

  test('a webhookId that is not a UUID is a 400 in the spec’s shape, message under errors.webhookId', async () => {
    const res = await open.app.inject({ url: '/v1/Webhooks/not-a-uuid', headers: bearer(key) });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = json(res);
    expect(body).toMatchObject({
      type: 'https://tools.ietf.org/html/rfc7231#section-6.5.1',
      title: 'One or more validation errors occurred.',
      state: 400,
      status: 400,
      traceId: res.headers['x-request-id'],
    });
    expect(Object.keys(body.errors as object)).toEqual(['webhookId']);
    expect((body.errors as Record<string, string[]>).webhookId?.[0]).toMatch(/UUID/);
    // The URN form passes a plain `uuid` format check but is no id the database takes: 400, not 500.
    const urn = await open.app.inject({
      url: '/v1/Webhooks/urn:uuid:3fa85f64-5717-4562-b3fc-2c963f66afa6',
      headers: bearer(key),
    });
    expect(urn.statusCode).toBe(400);
    const offset = await open.app.inject({
      url: '/v1/Webhooks?offset=99999999999999999999',
      headers: bearer(key),
    });
    expect(offset.statusCode).toBe(400);
  });

  test('401 without a key and 403 without the webhooks scope, both text/plain', async () => {
    const id = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
    const none = await open.app.inject({ url: `/v1/Webhooks/${id}` });
    expect(none.statusCode).toBe(401);
    expect(none.headers['content-type']).toMatch(/^text\/plain/);
    const priceOnly = await open.keyFor({ customerNrs: ['1000'], scopes: ['price'] });
    const forbidden = await open.app.inject({ url: `/v1/Webhooks/${id}`, headers: bearer(priceOnly) });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.headers['content-type']).toMatch(/^text\/plain/);
  });

  test('an unknown webhook and another customer’s are both 404, on every operation', async () => {
    const unknown = await open.app.inject({
      url: '/v1/Webhooks/3fa85f64-5717-4562-b3fc-2c963f66afa6',
      headers: bearer(key),
    });
    expect(unknown.statusCode).toBe(404);
    const theirs = await createOk({ eventValue: '2000' }, otherKey);
    for (const [method, url] of [
      ['GET', `/v1/Webhooks/${theirs.uuid}`],
      ['PUT', `/v1/Webhooks/${theirs.uuid}`],
      ['DELETE', `/v1/Webhooks/${theirs.uuid}`],
      ['GET', `/v1/Webhooks/${theirs.uuid}/deliveries`],
      ['POST', `/v1/Webhooks/${theirs.uuid}/test`],
    ] as const) {
      const res = await open.app.inject({
        method,
        url,
        headers: bearer(key),
        ...(method === 'PUT' ? { payload: valid() } : {}),
      });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    // The owner still has it.
    const mine = await open.app.inject({ url: `/v1/Webhooks/${theirs.uuid}`, headers: bearer(otherKey) });
    expect(mine.statusCode).toBe(200);
  });

  test('the id is matched case-insensitively', async () => {
    const created = await createOk();
    const res = await open.app.inject({
      url: `/v1/Webhooks/${created.uuid.toUpperCase()}`,
      headers: bearer(key),
    });
    expect(res.statusCode).toBe(200);
    expect(json(res).uuid).toBe(created.uuid);
  });
});

describe('POST /v1/Webhooks', () => {
  test('200 with the record and its Location; expires defaults to two months ahead', async () => {
    const before = Date.now();
    const res = await create(valid());
    expect(res.statusCode).toBe(200);
    const record = json<{ uuid: string; expires: string }>(res);
    expect(res.headers.location).toBe(`/v1/Webhooks/${record.uuid}`);
    const expires = Date.parse(record.expires);
    const days = (expires - before) / 86_400_000;
    expect(days).toBeGreaterThan(58);
    expect(days).toBeLessThan(63);
  });

  test('property names bind case-insensitively', async () => {
    const res = await create({
      EventValue: '1000',
      EVENTVALUETYPE: 3,
      Url: `${receiver.url}/x`,
      Secret: 's',
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  test('missing required fields are all reported', async () => {
    const res = await create({});
    expect(res.statusCode).toBe(400);
    expect(Object.keys(errorsOf(res.body)).sort()).toEqual(['eventValue', 'eventValueType', 'secret', 'url']);
  });

  test('an explicit expires keeps its instant and is written with its UTC offset', async () => {
    const created = await createOk({ expires: '2099-06-01T12:00:00Z' });
    expect(created.expires).toBe('2099-06-01T14:00:00+02:00');
    const oslo = await createOk({ expires: '2099-01-15T08:30:00' });
    expect(oslo.expires).toBe('2099-01-15T08:30:00+01:00');
  });

  test('the latest expires is 9999-12-31T23:59:59 Oslo time (.NET’s DateTime.MaxValue), and is written back readable', async () => {
    const latest = await createOk({ expires: '9999-12-31T23:59:59.9999999' });
    expect(latest.expires).toBe('9999-12-31T23:59:59+01:00');
    const withOffset = await createOk({ expires: '9999-12-31T23:59:59.9999999+01:00' });
    expect(withOffset.expires).toBe('9999-12-31T23:59:59+01:00');
    const again = await create(valid({ expires: latest.expires }));
    expect(again.statusCode).toBe(200);
  });

  test('an expires in the past, past the year 9999 in Oslo, or not a date, is a 400 on expires', async () => {
    const late = ['9999-12-31T23:59:59Z', '9999-12-31T23:00:00Z'];
    for (const expires of ['2020-01-01T00:00:00+01:00', 'tomorrow', '2099-02-30T00:00:00Z', ...late]) {
      const res = await create(valid({ expires }));
      expect(res.statusCode, expires).toBe(400);
      expect(Object.keys(errorsOf(res.body))).toEqual(['expires']);
    }
  });

  test('every violated rule is reported together', async () => {
    const res = await create(
      valid({ eventValueType: 9, url: 'ftp://example.com/x', customHeaders: '[1]', expires: '2000-01-01' }),
    );
    expect(res.statusCode).toBe(400);
    expect(Object.keys(errorsOf(res.body)).sort()).toEqual([
      'customHeaders',
      'eventValueType',
      'expires',
      'url',
    ]);
  });
});

describe('what a webhook listens to', () => {
  test('eventValueType 3: a customer number the key may act for; another customer’s is 403 text/plain', async () => {
    await createOk({ eventValue: '1000', eventValueType: 3 });
    const res = await create(valid({ eventValue: '2000', eventValueType: 3 }));
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const notDigits = await create(valid({ eventValue: 'ACME', eventValueType: 3 }));
    expect(notDigits.statusCode).toBe(400);
    expect(Object.keys(errorsOf(notDigits.body))).toEqual(['eventValue']);
  });

  test('an admin may register for any existing customer, not for an unknown one', async () => {
    expect((await create(valid({ eventValue: '2000' }), ADMIN_KEY)).statusCode).toBe(200);
    const unknown = await create(valid({ eventValue: '987654' }), ADMIN_KEY);
    expect(unknown.statusCode).toBe(400);
    expect(errorsOf(unknown.body).eventValue?.[0]).toMatch(/does not exist/);
  });

  test('eventValueType 2: the key’s own shipment; a foreign, unknown or cancelled one is a 400 on eventValue', async () => {
    const created = await createOk({ eventValue: SHIPMENT, eventValueType: 2 });
    const [row] = await open.database.db.select().from(webhooks).where(eq(webhooks.id, created.uuid));
    expect(row?.customerNr).toBe('1000');
    for (const value of [FOREIGN_SHIPMENT, '70900010000009999', CANCELLED_SHIPMENT]) {
      const res = await create(valid({ eventValue: value, eventValueType: 2 }));
      expect(res.statusCode, value).toBe(400);
      expect(Object.keys(errorsOf(res.body))).toEqual(['eventValue']);
    }
    // The foreign one reads exactly like an unknown one.
    const foreign = await create(valid({ eventValue: FOREIGN_SHIPMENT, eventValueType: 2 }));
    expect(errorsOf(foreign.body).eventValue?.[0]).toBe(
      `No shipment ${FOREIGN_SHIPMENT} was found among the shipments this key may act for.`,
    );
  });

  test('eventValueType 1: a parcel number of the key’s shipments (SSCC or the customer’s own)', async () => {
    await createOk({ eventValue: '370900010000000017', eventValueType: 1 });
    await createOk({ eventValue: 'MY-PARCEL-1', eventValueType: 1 });
    const foreign = await create(valid({ eventValue: 'FOREIGN-1', eventValueType: 1 }));
    expect(foreign.statusCode).toBe(400);
    expect(Object.keys(errorsOf(foreign.body))).toEqual(['eventValue']);
  });

  test('an eventValueType other than 1, 2 or 3 is a 400 on eventValueType', async () => {
    for (const eventValueType of [0, 4, -1]) {
      const res = await create(valid({ eventValueType }));
      expect(res.statusCode).toBe(400);
      expect(Object.keys(errorsOf(res.body))).toEqual(['eventValueType']);
    }
    const text = await create(valid({ eventValueType: 'customer' }));
    expect(text.statusCode).toBe(400);
    expect(Object.keys(errorsOf(text.body))).toEqual(['eventValueType']);
  });
});

describe('how many webhooks may listen to one eventValue', () => {
  test('KOLLI_WEBHOOKS_PER_EVENT_VALUE registrations at most; a replace keeps its place, a delete frees it', async () => {
    const limited = await buildTestApp({
      env: { KOLLI_WEBHOOK_ALLOW_PRIVATE: '1', KOLLI_WEBHOOKS_PER_EVENT_VALUE: '2' },
    });
    try {
      const k = await limited.keyFor({ customerNrs: ['1000', '2000'], scopes: ['webhooks'] });
      const post = (over: Record<string, unknown> = {}) => create(valid(over), k, limited);
      const first = json<{ uuid: string }>(await post());
      expect((await post()).statusCode).toBe(200);
      const third = await post({ url: 'https://127.0.0.1/other', secret: '' });
      expect(third.statusCode).toBe(400);
      // Reported with the request's other violations.
      expect(Object.keys(json<{ errors: object }>(third).errors).sort()).toEqual(['eventValue', 'secret']);
      expect(json<{ errors: Record<string, string[]> }>(third).errors.eventValue?.[0]).toMatch(/At most 2 /);
      // Another eventValue has places of its own; a replace of one of the two keeps its place.
      expect((await post({ eventValue: '2000' })).statusCode).toBe(200);
      const put = (id: string, over: Record<string, unknown> = {}) =>
        limited.app.inject({
          method: 'PUT',
          url: `/v1/Webhooks/${id}`,
          headers: bearer(k),
          payload: valid(over),
        });
      const replaced = await put(first.uuid, { secret: 'a-new-secret' });
      expect(replaced.statusCode, replaced.body).toBe(200);
      // Also when the schema refuses part of the replace: its rules know which one it names.
      expect(Object.keys(json<{ errors: object }>(await put(first.uuid, { secret: '' })).errors)).toEqual([
        'secret',
      ]);
      // A disabled registration delivers nothing and holds no place; enabled again by a replace, it
      // needs one.
      await limited.database.db.update(webhooks).set({ enabled: false }).where(eq(webhooks.id, first.uuid));
      const instead = json<{ uuid: string }>(await post());
      expect(instead.uuid).toBeTruthy();
      expect(Object.keys(json<{ errors: object }>(await put(first.uuid)).errors)).toEqual(['eventValue']);
      await limited.app.inject({ method: 'DELETE', url: `/v1/Webhooks/${instead.uuid}`, headers: bearer(k) });
      expect((await put(first.uuid)).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });

  test('registrations made at the same moment do not all take the last place', async () => {
    const limited = await buildTestApp({
      env: { KOLLI_WEBHOOK_ALLOW_PRIVATE: '1', KOLLI_WEBHOOKS_PER_EVENT_VALUE: '2' },
    });
    try {
      const k = await limited.keyFor({ customerNrs: ['1000'], scopes: ['webhooks'] });
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => create(valid(), k, limited).then((r) => r.statusCode)),
      );
      expect(answers.filter((s) => s === 200)).toHaveLength(2);
      expect(answers.filter((s) => s === 400)).toHaveLength(8);
    } finally {
      await limited.close();
    }
  });
});

describe('customHeaders and secret', () => {
  test('a JSON object of strings is kept (the object form is accepted and serialised)', async () => {
    const asString = await createOk({ customHeaders: '{"X-Api-Key": "abc", "X-Tenant": "7"}' });
    expect(asString.customHeaders).toBe('{"X-Api-Key":"abc","X-Tenant":"7"}');
    const asObject = await createOk({ customHeaders: { Authorization: 'Basic Zm9vOmJhcg==' } });
    expect(asObject.customHeaders).toBe('{"Authorization":"Basic Zm9vOmJhcg=="}');
    const none = await createOk({ customHeaders: null });
    expect(none.customHeaders).toBeNull();
  });

  test.each([
    ['not JSON', '{X-Api-Key: abc}'],
    ['an array', '["a"]'],
    ['a number value', '{"X-Count": 3}'],
    ['host', '{"Host": "evil.example"}'],
    ['content-length', '{"Content-Length": "1"}'],
    ['content-type', '{"content-type": "text/plain"}'],
    ['transfer-encoding', '{"Transfer-Encoding": "chunked"}'],
    ['content-encoding', '{"Content-Encoding": "gzip"}'],
    ['a webhook- header', '{"Webhook-Signature": "v1,forged"}'],
    ['a name with a space', '{"X Api": "a"}'],
    ['a line break in a value', '{"X-Api-Key": "a\\r\\nX-Injected: 1"}'],
    ['the same name twice', '{"X-A": "1", "x-a": "2"}'],
  ])('customHeaders with %s is a 400 on customHeaders', async (_, customHeaders) => {
    const res = await create(valid({ customHeaders }));
    expect(res.statusCode).toBe(400);
    expect(Object.keys(errorsOf(res.body))).toEqual(['customHeaders']);
  });

  test('a whsec_ secret must carry base64 key bytes; a plain secret is any non-blank text', async () => {
    await createOk({ secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
    for (const secret of ['whsec_not base64!', '   ']) {
      const res = await create(valid({ secret }));
      expect(res.statusCode, secret).toBe(400);
      expect(Object.keys(errorsOf(res.body))).toEqual(['secret']);
    }
  });
});

describe('target addresses (SSRF guard at registration)', () => {
  test.each([
    ['loopback', 'https://127.0.0.1/hook'],
    ['IPv6 loopback', 'https://[::1]/hook'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook'],
    ['cloud metadata', 'https://169.254.169.254/latest/meta-data'],
    ['private range', 'https://10.0.0.1/hook'],
    ['private range 192.168', 'https://192.168.1.10/hook'],
    ['decimal IP (127.0.0.1)', 'https://2130706433/hook'],
    ['hex IP (127.0.0.1)', 'https://0x7f000001/hook'],
    ['unspecified', 'https://0.0.0.0/hook'],
    ['a name resolving to loopback', 'https://localhost/hook'],
    ['http on loopback', 'http://127.0.0.1:8080/hook'],
  ])('refused with the setting off: %s', async (_, url) => {
    const res = await create(valid({ url }), closedKey, closed);
    expect(res.statusCode, res.body).toBe(400);
    expect(Object.keys(errorsOf(res.body))).toEqual(['url']);
  });

  test('a public https address is accepted with the setting off', async () => {
    const res = await create(valid({ url: 'https://93.184.216.34/kolli' }), closedKey, closed);
    expect(res.statusCode, res.body).toBe(200);
  });

  test('with the setting on: http only on loopback, metadata never, other schemes and credentials never', async () => {
    expect((await create(valid({ url: `${receiver.url}/ok` }))).statusCode).toBe(200);
    expect((await create(valid({ url: `http://localhost:${receiver.port}/ok` }))).statusCode).toBe(200);
    expect((await create(valid({ url: 'https://10.0.0.1/ok' }))).statusCode).toBe(200);
    for (const url of [
      'http://10.0.0.1/hook',
      'http://93.184.216.34/hook',
      'https://169.254.169.254/latest',
      'ftp://127.0.0.1/x',
      'https://user:pass@93.184.216.34/x',
      'not a url',
    ]) {
      const res = await create(valid({ url }));
      expect(res.statusCode, url).toBe(400);
      expect(Object.keys(errorsOf(res.body))).toEqual(['url']);
    }
  });
});

describe('one 400 for every violation', () => {
  test('schema errors and the registration rules are reported together, on create and replace', async () => {
    const body = valid({ url: 'https://127.0.0.1/hook', secret: '' });
    const res = await create(body, closedKey, closed);
    expect(res.statusCode).toBe(400);
    expect(Object.keys(errorsOf(res.body)).sort()).toEqual(['secret', 'url']);
    const mine = await createOk();
    const put = await open.app.inject({
      method: 'PUT',
      url: `/v1/Webhooks/${mine.uuid}`,
      headers: bearer(key),
      payload: valid({ expires: '2020-01-01T00:00:00Z', secret: '' }),
    });
    expect(put.statusCode).toBe(400);
    expect(Object.keys(errorsOf(put.body)).sort()).toEqual(['expires', 'secret']);
  });
});

describe('GET, PUT and DELETE /v1/Webhooks', () => {
  test('the list holds the caller’s registrations only; an admin sees every customer’s', async () => {
    const mine = await createOk();
    const theirs = await createOk({ eventValue: '2000' }, otherKey);
    const list = json<{ uuid: string }[]>(
      await open.app.inject({ url: '/v1/Webhooks', headers: bearer(key) }),
    );
    expect(list.some((w) => w.uuid === mine.uuid)).toBe(true);
    expect(list.some((w) => w.uuid === theirs.uuid)).toBe(false);
    const all = json<{ uuid: string }[]>(
      await open.app.inject({ url: '/v1/Webhooks', headers: bearer(ADMIN_KEY) }),
    );
    expect(all.some((w) => w.uuid === theirs.uuid)).toBe(true);
    const page = json<unknown[]>(
      await open.app.inject({ url: '/v1/Webhooks?limit=2&offset=1', headers: bearer(key) }),
    );
    expect(page).toHaveLength(2);
    const bad = await open.app.inject({ url: '/v1/Webhooks?limit=0', headers: bearer(key) });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(errorsOf(bad.body))).toEqual(['limit']);
  });

  test('PUT replaces every field, renews expires and enables a disabled registration', async () => {
    const created = await createOk({ expires: '2099-01-01T00:00:00+01:00', customHeaders: '{"X-A":"1"}' });
    await open.database.db
      .update(webhooks)
      .set({ enabled: false, disabledReason: 'The target answered 410 Gone.', disabledAt: new Date() })
      .where(eq(webhooks.id, created.uuid));
    const res = await open.app.inject({
      method: 'PUT',
      url: `/v1/Webhooks/${created.uuid}`,
      headers: bearer(key),
      payload: valid({ eventValue: SHIPMENT, eventValueType: 2, url: `${receiver.url}/new`, secret: 'new' }),
    });
    expect(res.statusCode, res.body).toBe(200);
    const record = json<{ expires: string }>(res);
    expect(record).toMatchObject({
      uuid: created.uuid,
      eventValue: SHIPMENT,
      eventValueType: 2,
      url: `${receiver.url}/new`,
      secret: 'new',
      customHeaders: null,
    });
    expect(Date.parse(record.expires) - Date.now()).toBeLessThan(63 * 86_400_000);
    const [row] = await open.database.db.select().from(webhooks).where(eq(webhooks.id, created.uuid));
    expect(row).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });
    const invalid = await open.app.inject({
      method: 'PUT',
      url: `/v1/Webhooks/${created.uuid}`,
      headers: bearer(key),
      payload: valid({ secret: '' }),
    });
    expect(invalid.statusCode).toBe(400);
  });

  test('DELETE answers 204 and the registration is gone', async () => {
    const created = await createOk();
    const del = await open.app.inject({
      method: 'DELETE',
      url: `/v1/Webhooks/${created.uuid}`,
      headers: bearer(key),
    });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    const res = await open.app.inject({ url: `/v1/Webhooks/${created.uuid}`, headers: bearer(key) });
    expect(res.statusCode).toBe(404);
  });
});

describe('POST /v1/Webhooks/{webhookId}/test and the delivery history', () => {
  test('sends a webhook.test message that the standardwebhooks library verifies; custom headers arrive', async () => {
    answer = 200;
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const created = await createOk({ secret, customHeaders: '{"X-Api-Key":"k-123"}' });
    const before = receiver.received.length;
    const res = await open.app.inject({
      method: 'POST',
      url: `/v1/Webhooks/${created.uuid}/test`,
      headers: bearer(key),
    });
    expect(res.statusCode, res.body).toBe(200);
    const result = json<{ deliveryId: string }>(res);
    expect(result).toMatchObject({ type: 'webhook.test', succeeded: true, statusCode: 200, error: null });
    const got = receiver.received[before];
    if (!got) throw new Error('nothing received');
    expect(got.method).toBe('POST');
    expect(got.path).toBe('/hooks');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-api-key']).toBe('k-123');
    expect(got.headers['webhook-id']).toBe(result.deliveryId);
    const payload = new Webhook(secret).verify(got.body, got.headers as Record<string, string>);
    expect(payload).toMatchObject({ type: 'webhook.test', data: { WebhookId: created.uuid } });
    expect(typeof (payload as { timestamp: string }).timestamp).toBe('string');

    const history = json<{
      enabled: boolean;
      deliveries: { id: string; status: string; attempts: unknown[] }[];
    }>(await open.app.inject({ url: `/v1/Webhooks/${created.uuid}/deliveries`, headers: bearer(key) }));
    expect(history.enabled).toBe(true);
    expect(history.deliveries[0]).toMatchObject({
      id: result.deliveryId,
      status: 'succeeded',
      type: 'webhook.test',
    });
    expect(history.deliveries[0]?.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        statusCode: 200,
        succeeded: true,
        responseBody: 'ok',
        nextAttemptAt: null,
      }),
    ]);
  });

  test('a plain secret signs with its UTF-8 bytes', async () => {
    answer = 200;
    const secret = 'blåbærsyltetøy-hemmelig';
    const created = await createOk({ secret });
    const before = receiver.received.length;
    await open.app.inject({ method: 'POST', url: `/v1/Webhooks/${created.uuid}/test`, headers: bearer(key) });
    const got = receiver.received[before];
    if (!got) throw new Error('nothing received');
    const verifier = new Webhook(new Uint8Array(Buffer.from(secret, 'utf8')), { format: 'raw' });
    expect(verifier.verify(got.body, got.headers as Record<string, string>)).toMatchObject({
      type: 'webhook.test',
    });
    // The same key as `whsec_` + base64 of the bytes: what integrators paste into other libraries.
    const whsec = `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;
    expect(new Webhook(whsec).verify(got.body, got.headers as Record<string, string>)).toBeTruthy();
  });

  test('a failing target: the outcome says so and a retry is scheduled', async () => {
    answer = 503;
    try {
      const created = await createOk();
      const res = await open.app.inject({
        method: 'POST',
        url: `/v1/Webhooks/${created.uuid}/test`,
        headers: bearer(key),
      });
      const result = json<{ nextAttemptAt: string | null }>(res);
      expect(result).toMatchObject({ succeeded: false, statusCode: 503, error: 'HTTP 503' });
      // CONTRACT §2: `YYYY-MM-DDTHH:mm:ss`, Oslo local time; only `expires` carries an offset.
      expect(result.nextAttemptAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      const history = json<{
        deliveries: { status: string; lastStatusCode: number }[];
        failingSince: string;
      }>(
        await open.app.inject({
          url: `/v1/Webhooks/${created.uuid}/deliveries?limit=5`,
          headers: bearer(key),
        }),
      );
      expect(history.deliveries[0]).toMatchObject({ status: 'pending', lastStatusCode: 503 });
      expect(history.failingSince).not.toBeNull();
    } finally {
      answer = 200;
    }
  });

  /** A registration changed as `set` says, then tested: nothing may reach the receiver. */
  const testRefused = async (set: Partial<typeof webhooks.$inferInsert>) => {
    const created = await createOk();
    await open.database.db.update(webhooks).set(set).where(eq(webhooks.id, created.uuid));
    const before = receiver.received.length;
    const res = await open.app.inject({
      method: 'POST',
      url: `/v1/Webhooks/${created.uuid}/test`,
      headers: bearer(key),
    });
    expect(receiver.received.length).toBe(before);
    return res;
  };

  test('an expired registration sends nothing: 409', async () => {
    expect((await testRefused({ expires: new Date(Date.now() - 1000) })).statusCode).toBe(409);
  });

  test('a disabled registration sends nothing: 409 naming the reason', async () => {
    const res = await testRefused({
      enabled: false,
      disabledAt: new Date(),
      disabledReason: 'The target answered 410 Gone.',
    });
    expect(res.statusCode).toBe(409);
    expect(String(json(res).detail)).toMatch(/disabled \(The target answered 410 Gone\.\)/);
  });

  test('a test while an attempt to the registration is in flight is a 409: one attempt at a time', async () => {
    const slow = await startReceiver(() => ({ status: 200, delayMs: 1500 }));
    try {
      const created = await createOk({ url: `${slow.url}/slow` });
      const send = () =>
        open.app.inject({ method: 'POST', url: `/v1/Webhooks/${created.uuid}/test`, headers: bearer(key) });
      const first = send();
      await slow.waitFor(1);
      const second = await send();
      expect(second.statusCode, second.body).toBe(409);
      expect(String(json(second).detail)).toMatch(/in flight/);
      expect((await first).statusCode).toBe(200);
      expect(slow.received).toHaveLength(1);
      // Once it has finished, the next test goes out.
      expect((await send()).statusCode).toBe(200);
    } finally {
      await slow.close();
    }
  });

  test('with the setting off, a target stored on 127.0.0.1 is refused when connecting', async () => {
    // Stored directly, as if it had resolved to a public address at registration.
    const [row] = await closed.database.db
      .insert(webhooks)
      .values({
        id: '0f6b5d2e-8c49-4f5e-9d6a-1f2e3d4c5b6a',
        customerNr: '1000',
        eventValue: '1000',
        eventValueType: 3,
        url: `https://localhost:${receiver.port}/rebound`,
        secret: 's',
        expires: new Date(Date.now() + 86_400_000),
      })
      .returning();
    const before = receiver.received.length;
    const res = await closed.app.inject({
      method: 'POST',
      url: `/v1/Webhooks/${row?.id}/test`,
      headers: bearer(closedKey),
    });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toMatchObject({ succeeded: false, statusCode: null });
    expect(String(json(res).error)).toMatch(/not allowed/);
    expect(receiver.received.length).toBe(before);
  });
});

test('the operations are in the OpenAPI document', async () => {
  const doc = json<{ paths: Record<string, Record<string, unknown>> }>(
    await open.app.inject({ url: '/openapi.json' }),
  );
  expect(Object.keys(doc.paths['/v1/Webhooks/{webhookId}'] ?? {}).sort()).toEqual(['delete', 'get', 'put']);
  expect(Object.keys(doc.paths['/v1/Webhooks'] ?? {}).sort()).toEqual(['get', 'post']);
  expect(doc.paths['/v1/Webhooks/{webhookId}/deliveries']).toBeDefined();
  expect(doc.paths['/v1/Webhooks/{webhookId}/test']).toBeDefined();
});

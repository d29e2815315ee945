import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osloBergenBooking } from '../../test/factories';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import { gsin } from '../lib/gs1';

// CONTRACT §4: hostile input is a 400/413/415 problem naming what is wrong, never a 500.

let ctx: TestContext;
let key: string;
let port = 0;

const BODY_LIMIT = 256 * 1024;

beforeAll(async () => {
  ctx = await buildTestApp({
    clock: () => new Date('2026-11-23T09:00:00Z'),
    env: { KOLLI_BODY_LIMIT_BYTES: String(BODY_LIMIT) },
  });
  key = await ctx.keyFor({
    customerNrs: ['1000'],
    scopes: ['booking', 'price', 'invoice', 'shipments', 'webhooks', 'labels', 'ops'],
  });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (ctx.app.server.address() as net.AddressInfo).port;
});
afterAll(() => ctx.close());

type Res = Awaited<ReturnType<typeof ctx.app.inject>>;

function expectProblem(res: Res, status: number): Record<string, unknown> {
  expect(res.statusCode, res.body.slice(0, 300)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = json(res);
  expect(body.status).toBe(status);
  expect(body.traceId).toBe(res.headers['x-request-id']);
  return body;
}

const errorsOf = (res: Res) => (json(res).errors ?? {}) as Record<string, string[]>;

/** Every operation of the OpenAPI document that takes a JSON body, with its path ids filled in. */
async function bodyOperations(): Promise<{ method: string; url: string }[]> {
  const doc = json<{ paths: Record<string, Record<string, { requestBody?: unknown }>> }>(
    await ctx.app.inject({ url: '/openapi.json' }),
  );
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => op.requestBody)
      .map(([method, op]) => {
        const content = Object.keys((op.requestBody as { content: object }).content);
        return { method: method.toUpperCase(), url: path.replace(/\{[^}]+\}/g, '1'), content };
      })
      .filter((op) => op.content.some((c) => c.includes('json')))
      .map(({ method, url }) => ({ method, url })),
  );
}

describe('JSON nesting', () => {
  const deepArray = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

  test('10 000 levels are a 400 on every operation that takes a JSON body', async () => {
    const operations = await bodyOperations();
    expect(operations.length).toBeGreaterThanOrEqual(15);
    for (const { method, url } of operations) {
      for (const payload of [`{"x":${deepArray(10_000)}}`, deepObject(10_000)]) {
        const res = await ctx.app.inject({
          method: method as 'POST',
          url,
          headers: { ...bearer(ADMIN_KEY), 'content-type': 'application/json' },
          payload,
        });
        expectProblem(res, 400);
        expect(errorsOf(res).request?.[0], `${method} ${url}`).toMatch(/nested more than 64 levels/);
      }
    }
  });

  test('deep nesting inside Parcels and customHeaders is refused while parsing', async () => {
    const booking = JSON.stringify(osloBergenBooking()).replace(
      '"Parcels":[{',
      `"Parcels":[${'['.repeat(100)}{`,
    );
    const cases: [string, string][] = [
      ['/Shipment/Update', booking],
      [
        '/v1/Webhooks',
        `{"url":"https://x.example","customHeaders":${'{"h":'.repeat(65)}"v"${'}'.repeat(65)}}`,
      ],
      ['/v2/PriceCalculator', `{"parcels":${deepArray(65)}}`],
    ];
    for (const [url, payload] of cases) {
      const res = await ctx.app.inject({
        method: 'POST',
        url,
        headers: { ...bearer(key), 'content-type': 'application/json' },
        payload,
      });
      expect(errorsOf(expectProblem(res, 400) && res).request?.[0], url).toMatch(/nested/);
    }
  });

  test('64 levels are not refused for their depth, 65 are; brackets inside strings do not count', async () => {
    const send = (levels: number) =>
      ctx.app.inject({
        method: 'POST',
        url: '/v2/PriceCalculator',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        // The outer object is the first level; the string's brackets are text. An unknown member
        // is ignored on a spec operation, whatever it holds.
        payload: `{"customer_nr":"1000","sender_zip":"0154","receiver_zip":"5003","product_type":"43","weight":5,"note":"${'[{'.repeat(
          90,
        )}\\"","extra":${deepArray(levels - 1)}}`,
      });
    const at64 = await send(64);
    expect(at64.statusCode, at64.body).toBe(200);
    const at65 = await send(65);
    expect(errorsOf(expectProblem(at65, 400) && at65).request?.[0]).toMatch(/nested more than 64 levels/);
  });
});

describe('requests the HTTP parser refuses', () => {
  /** Sends raw bytes and reads the answer until the server closes the connection. */
  const raw = (request: string) =>
    new Promise<{ status: number; headers: Record<string, string>; body: string }>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.end(request));
      const received: Buffer[] = [];
      socket.on('data', (d: Buffer) => received.push(d));
      socket.on('error', reject);
      socket.on('close', () => {
        const [head = '', body = ''] = Buffer.concat(received).toString().split('\r\n\r\n');
        const [statusLine = '', ...lines] = head.split('\r\n');
        const headers = Object.fromEntries(
          lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
        );
        resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
      });
    });

  test.each([
    ['a space in the path', 'GET /v1/postalcodes/01 50 HTTP/1.1\r\nhost: kolli\r\n\r\n', 400],
    [
      'two Content-Lengths',
      'POST /Shipment/Update HTTP/1.1\r\nhost: kolli\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}',
      400,
    ],
    [
      'headers over 16 KB',
      `GET /healthz HTTP/1.1\r\nhost: kolli\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
    ],
  ])('%s is a problem with a trace id', async (_name, request, status) => {
    const res = await raw(request);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = JSON.parse(res.body) as { status: number; traceId: string };
    expect(body.status).toBe(status);
    expect(body.traceId).toBe(res.headers['x-request-id']);
  });
});

describe('a request not received whole in time', () => {
  test('a body shorter than its Content-Length is answered 408, as a problem', async () => {
    const slow = await buildTestApp({ env: { KOLLI_REQUEST_TIMEOUT_MS: '1000' } });
    try {
      const slowKey = await slow.keyFor({ scopes: ['booking'] });
      await slow.app.listen({ port: 0, host: '127.0.0.1' });
      const { port: slowPort } = slow.app.server.address() as net.AddressInfo;
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(slowPort, '127.0.0.1', () =>
          socket.write(
            `POST /Shipment/Update HTTP/1.1\r\nhost: kolli\r\nauthorization: Bearer ${slowKey}\r\ncontent-type: application/json\r\ncontent-length: 50\r\n\r\n{}`,
          ),
        );
        const received: Buffer[] = [];
        socket.on('data', (d: Buffer) => received.push(d));
        socket.on('error', reject);
        socket.on('close', () => resolve(Buffer.concat(received).toString()));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toMatch(/content-type: application\/problem\+json/i);
      expect(answer).toContain('"status":408');
    } finally {
      await slow.close();
    }
  });
});

describe('a malformed date is named beside every other violation (CONTRACT §4)', () => {
  const get = (url: string) => ctx.app.inject({ url, headers: bearer(key) });

  test('in query strings: the listing, the v3 price, the delivery dates', async () => {
    const listing = await get(
      '/v1/shipment/list?postalcode=abc&customerid=x&pickupFromDate=foo&pickupToDate=2026-02-30',
    );
    expect(Object.keys(errorsOf(expectProblem(listing, 400) && listing)).sort()).toEqual(
      ['customerid', 'pickupFromDate', 'pickupToDate', 'postalcode'].sort(),
    );
    expect(errorsOf(listing).pickupFromDate).toEqual(['The pickupFromDate field is not a valid date.']);
    // The spec's `int`: a customer number past 32 bits is a 400 on customerid, not a 403.
    const large = await get(
      '/v1/shipment/list?postalcode=0154&customerid=2147483648&pickupFromDate=2026-11-01&pickupToDate=2026-11-02',
    );
    expect(Object.keys(errorsOf(expectProblem(large, 400) && large))).toEqual(['customerid']);

    const price = await get(
      '/v3/Calculate/?Customernr=1000&SenderZip=0154&ReceiverZip=5003&ProductCode=43&Weight=x&PickupDate=foo',
    );
    expectProblem(price, 400);
    expect(Object.keys(errorsOf(price)).sort()).toEqual(['PickupDate', 'Weight']);

    // The schema refuses the date; the route's own checks still name the product and the postal code.
    const dates = await get(
      '/v1/schedule/deliverydates?fromZip=0154&toZip=9999&productCode=ZZ&pickupDate=xx',
    );
    expectProblem(dates, 400);
    expect(Object.keys(errorsOf(dates)).sort()).toEqual(['pickupDate', 'productCode', 'toZip']);
  });

  test('in a body: the v2 price', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v2/PriceCalculator',
      headers: bearer(key),
      payload: {
        customer_nr: '1000',
        sender_zip: '0154',
        receiver_zip: '5003',
        product_type: '43',
        weight: 'x',
        pickup_date: '2026-13-01',
      },
    });
    expectProblem(res, 400);
    expect(Object.keys(errorsOf(res)).sort()).toEqual(['pickup_date', 'weight']);
  });

  test('every form a date parameter may take is read, and not named beside another error', async () => {
    const forms = [
      '2026-11-23',
      '2026-11-23T10:15:00',
      '2026-11-23T09:15:00Z',
      '2026-11-23T10:15:00+01:00',
      '2026-11-23 10:15',
      '2026-11-23T10:15:00.1234567',
    ];
    for (const when of forms) {
      const query = `Customernr=1000&SenderZip=0154&ReceiverZip=5003&ProductCode=43&PickupDate=${encodeURIComponent(when)}`;
      const read = await get(`/v3/Calculate/?${query}&Weight=5`);
      expect(read.statusCode, `${when}: ${read.body}`).toBe(200);
      const refused = await get(`/v3/Calculate/?${query}&Weight=x`);
      expectProblem(refused, 400);
      expect(errorsOf(refused), when).toEqual({ Weight: ['The Weight field must be an integer.'] });
    }
  });
});

describe('integers a double cannot hold', () => {
  test('a 17-digit ShipmentId sent as a JSON number keeps its digits (CONTRACT §2)', async () => {
    // 73123459999999996 is above 2^53: JSON.parse alone reads it as 73123460000000000.
    const id = gsin('7312345', 999999999);
    expect(Number.isSafeInteger(Number(id))).toBe(false);
    const body = JSON.stringify(osloBergenBooking({ ShipmentStatus: 'Draft' })).replace(
      '{',
      `{"ShipmentId":${id},`,
    );
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/Shipment/Update',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(json(res).ShipmentId).toBe(id);
  });

  test('where a number is typed, such an integer is the number it always was', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/Shipment/Update',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: JSON.stringify(osloBergenBooking()).replace('"Weight":12.5', '"Weight":123456789012345678'),
    });
    expectProblem(res, 400);
    // The same message as for a number the parser reads exactly: the binder made it a number again.
    const exact = await ctx.app.inject({
      method: 'POST',
      url: '/Shipment/Update',
      headers: bearer(key),
      payload: osloBergenBooking({ Parcels: [{ Weight: 123456789012345 }] }),
    });
    expect(errorsOf(res)).toEqual(errorsOf(exact));
    expect(errorsOf(res)['Parcels[0].Weight']?.[0]).not.toMatch(/string/i);
  });
});

describe('unpaired surrogates and bytes that are not UTF-8', () => {
  const post = (url: string, payload: string | Buffer, k = key) =>
    ctx.app.inject({
      method: 'POST',
      url,
      headers: { ...bearer(k), 'content-type': 'application/json' },
      payload,
    });
  const withField = (over: Record<string, unknown>, raw: string, value: string) =>
    JSON.stringify(osloBergenBooking(over)).replace(`"${raw}"`, `"${value}"`);

  test('an escaped surrogate is a 400 naming each field, in the booking', async () => {
    const body = withField(
      { SenderReference: 'REF', Parcels: [{ Weight: 2 }, { Weight: 3, ParcelId: 'PID' }] },
      'REF',
      'a\\ud800b',
    ).replace('"PID"', '"\\udc00"');
    const res = await post('/Shipment/Update', body);
    expectProblem(res, 400);
    expect(errorsOf(res)).toEqual({
      SenderReference: ['The SenderReference field must not contain an unpaired UTF-16 surrogate.'],
      'Parcels[1].ParcelId': ['The ParcelId field must not contain an unpaired UTF-16 surrogate.'],
    });
  });

  test('names are matched case-insensitively before they are named', async () => {
    const res = await post('/Shipment/Update', withField({ recipientcompanyname: 'X' }, 'X', '\\ud83d'));
    expect(Object.keys(errorsOf(res))).toEqual(['RecipientCompanyName']);
  });

  test('a surrogate pair is a character, not an error', async () => {
    const res = await post(
      '/Shipment/Update',
      withField({ SenderReference: 'X' }, 'X', '\\ud83d\\udce6 box'),
    );
    expect(res.statusCode, res.body).toBe(201);
  });

  test('the raw UTF-8 bytes of a surrogate are a 400 naming the field', async () => {
    const [head, tail] = withField({ SenderReference: 'X' }, 'X', 'SPLIT').split('SPLIT');
    const body = Buffer.concat([
      Buffer.from(`${head}a`),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from(`b${tail}`),
    ]);
    const res = await post('/Shipment/Update', body);
    expectProblem(res, 400);
    expect(errorsOf(res)).toEqual({
      SenderReference: ['The SenderReference field must be valid UTF-8 text.'],
    });
  });

  test('webhook headers and admin names', async () => {
    const hook = await post(
      '/v1/Webhooks',
      '{"eventValue":"1000","eventValueType":3,"url":"https://hooks.example/x","secret":"s3cr3t-s3cr3t","customHeaders":{"x-a":"\\udfff"}}',
    );
    expectProblem(hook, 400);
    expect(Object.keys(errorsOf(hook))).toEqual(['customHeaders.x-a']);

    const customer = await post('/admin/customers', '{"CustomerNr":"3302","Name":"A\\ud800S"}', ADMIN_KEY);
    expectProblem(customer, 400);
    expect(Object.keys(errorsOf(customer))).toEqual(['Name']);

    const apiKey = await post(
      '/admin/api-keys',
      '{"Name":"\\ud800","CustomerNrs":["1000"],"Scopes":["price"]}',
      ADMIN_KEY,
    );
    expect(Object.keys(errorsOf(expectProblem(apiKey, 400) && apiKey))).toEqual(['Name']);
  });

  test('in a query string, by its declared name', async () => {
    const res = await ctx.app.inject({
      url: '/v1/schedule/deliverydates?FROMZIP=%ED%A0%80&toZip=5003&productCode=43',
      headers: bearer(key),
    });
    expectProblem(res, 400);
    expect(errorsOf(res).fromZip).toContain('The fromZip field must be valid UTF-8 text.');
  });

  test('a field named like an Object.prototype member is named, not looked up', async () => {
    const res = await ctx.app.inject({
      url: '/healthz?constructor=%C0%AF&__proto__=%ED%A0%80',
      headers: bearer(key),
    });
    expectProblem(res, 400);
    expect(Object.keys(errorsOf(res)).sort()).toEqual(['__proto__', 'constructor']);
  });

  test('an escaped percent sign is text, not a bad escape', async () => {
    const res = await ctx.app.inject({ url: '/v1/pickuppoints?postalCode=%25ED%25A0', headers: bearer(key) });
    expect(JSON.stringify(errorsOf(res))).not.toMatch(/UTF-8/);
  });

  test('in a path, as a problem naming the path parameter', async () => {
    for (const [url, field] of [
      ['/v2/Shipment/%ED%A0%80', 'shipmentid'],
      ['/v1/Webhooks/%ED%B0%80', 'webhookId'],
      ['/v1/products/ab%ED%A0%80', 'productCode'],
    ]) {
      const res = await ctx.app.inject({ url, headers: bearer(key) });
      expectProblem(res, 400);
      expect(
        Object.keys(errorsOf(res)).map((k) => k.toLowerCase()),
        url,
      ).toEqual([field?.toLowerCase()]);
    }
  });
});

describe('a very long path parameter', () => {
  test('is judged by its route, not refused by the router as 414', async () => {
    const long = 'a'.repeat(101);
    for (const [url, status, field] of [
      [`/v1/Webhooks/${long}`, 400, 'webhookId'],
      [`/v1/products/${long}`, 400, 'productCode'],
      [`/v1/postalcodes/${'1'.repeat(5000)}`, 400, 'postalCode'],
      [`/admin/api-keys/${long}`, 400, 'id'],
    ] as const) {
      const res = await ctx.app.inject({
        method: url.startsWith('/admin') ? 'DELETE' : 'GET',
        url,
        headers: bearer(url.startsWith('/admin') ? ADMIN_KEY : key),
      });
      expectProblem(res, status);
      expect(Object.keys(errorsOf(res)), url.slice(0, 30)).toEqual([field]);
    }
  });
});

describe('content types', () => {
  test('text/plain and application/xml are 415 problems', async () => {
    for (const type of ['text/plain', 'application/xml', 'text/plain; charset=utf-8']) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/Shipment/Update',
        headers: { ...bearer(key), 'content-type': type },
        payload: '{}',
      });
      expectProblem(res, 415);
    }
  });

  test('a form body is a 415 everywhere but the token endpoint, and writes nothing', async () => {
    const form = { ...bearer(key), 'content-type': 'application/x-www-form-urlencoded' };
    const webhook = await ctx.app.inject({
      method: 'POST',
      url: '/v1/Webhooks',
      headers: form,
      payload: `eventValue=1000&eventValueType=3&url=https://93.184.215.14/x&secret=abcdefghijklmnopqrstuvwxyz123456`,
    });
    expectProblem(webhook, 415);
    const listed = await ctx.app.inject({ method: 'GET', url: '/v1/Webhooks', headers: bearer(key) });
    expect(json<unknown[]>(listed)).toEqual([]);
    const booking = await ctx.app.inject({
      method: 'POST',
      url: '/Shipment/Update',
      headers: form,
      payload: 'ShipmentStatus=Draft',
    });
    expectProblem(booking, 415);
  });

  test('an empty body labelled JSON is no body: a DELETE from a client that labels every request works', async () => {
    const booked = await ctx.app.inject({
      method: 'POST',
      url: '/Shipment/Update',
      headers: bearer(key),
      payload: osloBergenBooking({ ShipmentStatus: 'Draft' }),
    });
    const { ShipmentId } = json<{ ShipmentId: string }>(booked);
    const labelled = { ...bearer(key), 'content-type': 'application/json; charset=utf-8' };
    const deleted = await ctx.app.inject({
      method: 'DELETE',
      url: `/v2/Shipment/${ShipmentId}`,
      headers: labelled,
    });
    expect(deleted.statusCode, deleted.body).toBeLessThan(300);
    // Where a body is needed, an empty one is named as missing.
    const empty = await ctx.app.inject({
      method: 'POST',
      url: '/Shipment/Update',
      headers: labelled,
      payload: '',
    });
    expect(Object.keys(expectProblem(empty, 400).errors as object)).toEqual(['request']);
  });

  test('a body with a content coding is a 415 naming it: it is not read as broken or as plain JSON', async () => {
    const post = (coding: string, payload: Buffer | string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/admin/customers',
        headers: { ...bearer(ADMIN_KEY), 'content-type': 'application/json', 'content-encoding': coding },
        payload,
      });
    const body = '{"CustomerNr":"3321","Name":"Gzip AS"}';
    for (const res of [
      await post('gzip', gzipSync(body)),
      await post('gzip', body),
      await post('br', body),
    ]) {
      expect(expectProblem(res, 415).detail).toMatch(/^Content-Encoding (gzip|br) is not supported/);
    }
    expect((await post('identity', body)).statusCode).toBe(201);
  });

  test('text/json and application/*+json are JSON (CONTRACT §2)', async () => {
    for (const [nr, type] of [
      ['3311', 'text/json'],
      ['3312', 'application/vnd.kolli+json; charset=utf-8'],
      ['3313', 'application/problem+json'],
      ['3314', 'Application/JSON; charset=UTF-8'],
    ]) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/admin/customers',
        headers: { ...bearer(ADMIN_KEY), 'content-type': type ?? '' },
        payload: `{"CustomerNr":"${nr}","Name":"X"}`,
      });
      expect(res.statusCode, `${type}: ${res.body}`).toBe(201);
    }
  });
});

/**
 * A client that writes its whole request before it reads anything: the request head and body go
 * out in full (each write awaited), and only then is the answer read. A server that closes while
 * body bytes are still unread makes this client's writes fail (EPIPE) or its socket reset.
 */
function writeAllThenRead(
  size: number,
  chunked: boolean,
): Promise<{ writeError: string | null; answer: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let writeError: string | null = null;
    socket.pause();
    socket.on('error', (err: NodeJS.ErrnoException) => {
      writeError ??= err.code ?? err.message;
    });
    socket.on('connect', async () => {
      const framing = chunked ? 'transfer-encoding: chunked' : `content-length: ${size}`;
      const write = (data: string | Buffer) =>
        new Promise<void>((ok) =>
          socket.write(data, (err) => {
            if (err) writeError ??= (err as NodeJS.ErrnoException).code ?? err.message;
            ok();
          }),
        );
      await write(
        `POST /admin/customers HTTP/1.1\r\nhost: kolli\r\nauthorization: Bearer ${ADMIN_KEY}\r\ncontent-type: application/json\r\n${framing}\r\n\r\n`,
      );
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      for (let sent = 0; sent < size && !writeError; sent += chunk.length) {
        await write(
          chunked
            ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
            : chunk,
        );
      }
      if (chunked && !writeError) await write('0\r\n\r\n');
      // Only now read the answer.
      socket.on('data', (d: Buffer) => received.push(d));
      socket.on('end', () => resolve({ writeError, answer: Buffer.concat(received).toString() }));
      socket.on('close', () => resolve({ writeError, answer: Buffer.concat(received).toString() }));
      socket.resume();
      setTimeout(() => reject(new Error('no answer')), 20_000).unref();
    });
  });
}

describe('body over the limit', () => {
  test('is a 413 problem', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/customers',
      headers: bearer(ADMIN_KEY),
      payload: { CustomerNr: '5', Name: 'x'.repeat(BODY_LIMIT) },
    });
    expectProblem(res, 413);
  });

  test('reaches a client that writes its whole body first, with Content-Length or chunked', async () => {
    for (const chunked of [false, true]) {
      const { writeError, answer } = await writeAllThenRead(24 * 1024 * 1024, chunked);
      expect(writeError, `chunked: ${chunked}`).toBeNull();
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toMatch(/content-type: application\/problem\+json/i);
      expect(answer).toContain('"status":413');
    }
  });
});

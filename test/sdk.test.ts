import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GENERATED_FILE, generateSchemaTypes } from '../sdk/generate';
import {
  aspNetQuery,
  createKolliClient,
  type KolliClient,
  KolliError,
  orThrow,
  retryAfterMs,
  type ShipmentPrice,
  type ShipmentRecord,
} from '../sdk/src/index';
import { osloBergenBooking } from './factories';
import { ADMIN_KEY, buildTestApp, type TestContext } from './helpers';

// Issue 20: the SDK is generated from the served document (a test fails when the committed one
// differs), and it books, updates, reads, prices, lists and reads an invoice report against a
// running server; the narrowing below compiles under `tsc --strict` (npm run typecheck).

let now = new Date('2026-11-23T09:00:00Z');
let ctx: TestContext;
let baseUrl: string;
let kolli: KolliClient;
let apiKey: string;

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => now });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  apiKey = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['booking', 'shipments', 'invoice', 'price'] });
  kolli = createKolliClient({ baseUrl, apiKey });
});
afterAll(() => ctx.close());

test('the committed SDK is what the served document generates (run `npm run sdk:generate`)', async () => {
  const document = (await ctx.app.inject({ url: '/openapi.json' })).json();
  expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(await generateSchemaTypes(document));
});

test('the SDK builds to JavaScript and declarations that plain Node loads where its package.json points', () => {
  // Integrators install the SDK from a checkout; its `prepare` builds dist/ with sdk/tsconfig.json.
  const outDir = 'var/sdk-build-test';
  rmSync(outDir, { recursive: true, force: true });
  execFileSync(process.execPath, [
    'node_modules/typescript/bin/tsc',
    '-p',
    'sdk/tsconfig.json',
    '--outDir',
    outDir,
  ]);
  const manifest = JSON.parse(readFileSync('sdk/package.json', 'utf8'));
  const built = (file: string) => join(outDir, file.replace(/^\.\/dist\//, ''));
  expect(existsSync(built(manifest.exports['.'].types))).toBe(true);
  const exported = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(pathToFileURL(built(manifest.exports['.'].default)).href)});
       console.log(Object.keys(m).sort().join(','));`,
    ],
    { encoding: 'utf8' },
  );
  expect(exported.trim().split(',')).toEqual(
    expect.arrayContaining(['createKolliClient', 'KolliError', 'orThrow']),
  );
  rmSync(outDir, { recursive: true, force: true });
});

describe('through the SDK', () => {
  let shipmentId = '';

  test('books a draft, then publishes it by updating', async () => {
    const draft = await kolli.POST('/Shipment/Update', {
      body: osloBergenBooking({ ShipmentStatus: 'Draft' }) as never,
    });
    expect(draft.response.status).toBe(201);
    if (!draft.data) throw new Error('no data');
    shipmentId = draft.data.ShipmentId;
    expect(draft.response.headers.get('location')).toBe(`/v2/Shipment/${shipmentId}`);

    const published = await orThrow(
      kolli.POST('/Shipment/Update', {
        body: osloBergenBooking({ ShipmentId: shipmentId, ShipmentStatus: 'Published' }) as never,
      }),
    );
    expect(published.ShipmentStatus).toBe(2);
  });

  test('reads the shipment, its price, and lists it', async () => {
    // The spec's resources are the answers' named types (compiled under strict by the typecheck).
    const records: ShipmentRecord[] = await orThrow(
      kolli.GET('/v2/Shipment/{shipmentid}', { params: { path: { shipmentid: shipmentId } } }),
    );
    expect(records[0]?.ShipmentId).toBe(shipmentId);
    const price: ShipmentPrice = await orThrow(
      kolli.GET('/v2/Shipment/{shipmentid}/price', { params: { path: { shipmentid: shipmentId } } }),
    );
    expect(price.Quote).toBe(false);
    expect(price.Total).toBeGreaterThan(0);
    const quote = await orThrow(
      kolli.POST('/v2/PriceCalculator', {
        body: {
          customer_nr: '1000',
          sender_zip: '0154',
          receiver_zip: '5003',
          weight: 13,
          product_type: '43',
        } as never,
      }),
    );
    expect(quote).toBeTruthy();
    const listed = await orThrow(
      kolli.GET('/v1/shipment/list', {
        params: {
          query: {
            postalcode: '0154',
            customerid: 1000,
            pickupFromDate: '2026-11-01',
            pickupToDate: '2026-11-30',
          },
        },
      }),
    );
    expect(JSON.stringify(listed)).toContain(shipmentId);
  });

  test('prices per parcel through the query: lists of objects indexed, lists of values repeated', async () => {
    // openapi-fetch's own serializer threw on `Parcels`; the server reads them as ASP.NET does.
    const query = {
      Customernr: '1000',
      SenderZip: '0154',
      ReceiverZip: '5003',
      ProductCode: '43',
      Weight: 42,
      Parcels: [
        { Weight: 12, Length: 60, Width: 40, Height: 30 },
        { Weight: 30, Length: 120, Width: 80, Height: 60 },
      ],
      Services: ['16', '35'],
    };
    const priced = await orThrow(kolli.GET('/v3/Calculate/', { params: { query } }));
    const byHand = await ctx.app.inject({
      url: '/v3/Calculate/?Customernr=1000&SenderZip=0154&ReceiverZip=5003&ProductCode=43&Weight=42&Parcels[0].Weight=12&Parcels[0].Length=60&Parcels[0].Width=40&Parcels[0].Height=30&Parcels[1].Weight=30&Parcels[1].Length=120&Parcels[1].Width=80&Parcels[1].Height=60&Services=16&Services=35',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(byHand.statusCode, byHand.body).toBe(200);
    expect(priced).toEqual(byHand.json());
    const v2 = await orThrow(
      kolli.GET('/v2/PriceCalculator', {
        params: {
          query: {
            customer_nr: '1000',
            sender_zip: '0154',
            receiver_zip: '5003',
            product_type: '43',
            weight: 42,
            parcels: [{ weight: 12 }, { weight: 30 }],
          },
        },
      }),
    );
    expect(v2).toBeTruthy();
  });

  test('labels come as bytes with parseAs; a 304 to a conditional read throws and says so', async () => {
    const printer = createKolliClient({
      baseUrl,
      apiKey: await ctx.keyFor({ customerNrs: ['1000'], scopes: ['labels'] }),
    });
    const labels = await printer.GET('/v1/labels/{shipmentId}', {
      params: { path: { shipmentId: shipmentId }, query: { format: 'pdf' } },
      parseAs: 'arrayBuffer',
    });
    expect(
      Buffer.from(labels.data as ArrayBuffer)
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    const read = await kolli.GET('/v2/Shipment/{shipmentid}', {
      params: { path: { shipmentid: shipmentId } },
    });
    const etag = read.response.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    const notModified = orThrow(
      kolli.GET('/v2/Shipment/{shipmentid}', {
        params: { path: { shipmentid: shipmentId } },
        headers: { 'if-none-match': etag },
      }),
    );
    await expect(notModified).rejects.toSatisfy(
      (e) => e instanceof KolliError && e.status === 304 && /Not Modified/.test(e.message),
    );
  });

  test('fetches an invoice report once the shipment is invoiced', async () => {
    const admin = createKolliClient({ baseUrl, apiKey: ADMIN_KEY });
    const parcels = await orThrow(
      kolli.GET('/Shipment/{shipmentid}', { params: { path: { shipmentid: shipmentId } } }),
    );
    now = new Date('2026-11-23T12:00:00Z');
    const ops = createKolliClient({
      baseUrl,
      apiKey: await ctx.keyFor({ customerNrs: [], scopes: ['ops'] }),
    });
    await orThrow(
      ops.POST('/ops/scans', {
        body: {
          Events: parcels.map((p, i) => ({
            EventId: `sdk-${i}`,
            ParcelId: p.ParcelId,
            EventType: 'PickedUp',
            Time: '2026-11-23T13:00:00',
          })),
        } as never,
      }),
    );
    now = new Date('2026-11-30T09:00:00Z');
    await orThrow(admin.POST('/admin/invoicing/runs', { body: { ToDate: '2026-11-29' } }));
    const report = await orThrow(
      kolli.GET('/v2/Invoice/GetInvoiceReport', {
        params: {
          query: { Customernr: '1000', Payer: 'S', FromPickupDate: '2026-11-23', ToPickupDate: '2026-11-23' },
        },
      }),
    );
    expect(report.map((r) => r.ShipmentNr)).toContain(shipmentId);
  });

  test('error answers narrow to problem details or plain text, and orThrow throws a KolliError', async () => {
    const { data, error, response } = await kolli.GET('/v2/Shipment/{shipmentid}', {
      params: { path: { shipmentid: '70900019999999999' } },
    });
    expect(data).toBeUndefined();
    expect(response.status).toBe(404);
    if (error === undefined) throw new Error('expected an error');
    if (typeof error === 'string') throw new Error(`expected problem details, got ${error}`);
    expect(error.status).toBe(404);

    const anonymous = createKolliClient({ baseUrl });
    const denied = await anonymous.GET('/v1/products');
    expect(typeof denied.error).toBe('string');

    const bad = await kolli.POST('/Shipment/Update', { body: osloBergenBooking({ Parcels: [{}] }) as never });
    expect(bad.response.status).toBe(400);
    await expect(
      orThrow(kolli.POST('/Shipment/Update', { body: osloBergenBooking({ Parcels: [{}] }) as never })),
    ).rejects.toSatisfy(
      (e) => e instanceof KolliError && e.status === 400 && Object.keys(e.fieldErrors).length > 0,
    );
  });
});

describe('what the hand-written layer adds', () => {
  test('OAuth client credentials: a token is fetched once and used', async () => {
    const created = await ctx.services.auth.createKey({
      name: 'sdk',
      customerNrs: ['1000'],
      scopes: ['webhooks'],
    });
    const seen: string[] = [];
    const client = createKolliClient({
      baseUrl,
      clientCredentials: { clientId: created.Id, clientSecret: created.Key },
      fetch: (request) => {
        seen.push(
          `${request.method} ${new URL(request.url).pathname} ${request.headers.get('authorization') ?? ''}`,
        );
        return fetch(request);
      },
    });
    for (let i = 0; i < 2; i++) {
      const res = await client.GET('/v1/Webhooks');
      expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    }
    expect(seen.filter((s) => s.startsWith('POST /oauth/token'))).toHaveLength(1);
    expect(seen.filter((s) => s.startsWith('GET /v1/Webhooks')).every((s) => /Bearer \S+/.test(s))).toBe(
      true,
    );
    expect(seen.some((s) => s.includes(created.Key))).toBe(false);
    // A wrong secret fails with the server's OAuth explanation, not a bare status.
    const refused = createKolliClient({
      baseUrl,
      clientCredentials: { clientId: created.Id, clientSecret: 'not-the-secret' },
    });
    await expect(refused.GET('/v1/Webhooks')).rejects.toSatisfy(
      (e) => e instanceof KolliError && e.status === 401 && /client id or secret/i.test(e.message),
    );
  });

  test('429/503 are retried after Retry-After with the same Idempotency-Key', async () => {
    const keys: (string | null)[] = [];
    const waits: number[] = [];
    let refusals = 2;
    const client = createKolliClient({
      baseUrl,
      apiKey,
      sleep: async (ms) => {
        waits.push(ms);
      },
      fetch: (request) => {
        keys.push(request.headers.get('idempotency-key'));
        if (refusals-- > 0) {
          return Promise.resolve(
            new Response('{"status":503}', {
              status: refusals === 1 ? 503 : 429,
              headers: { 'retry-after': '2' },
            }),
          );
        }
        return fetch(request);
      },
    });
    const res = await client.POST('/Shipment/Update', {
      body: osloBergenBooking({ ShipmentStatus: 'Draft' }) as never,
    });
    expect(res.response.status).toBe(201);
    expect(waits).toEqual([2000, 2000]);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
  });

  test('without Retry-After the backoff doubles; it gives up after its retries', async () => {
    const waits: number[] = [];
    const client = createKolliClient({
      baseUrl,
      apiKey,
      retries: 2,
      backoffMs: 100,
      sleep: async (ms) => {
        waits.push(ms);
      },
      fetch: () => Promise.resolve(new Response('busy', { status: 503 })),
    });
    const res = await client.GET('/v1/products');
    expect(res.response.status).toBe(503);
    expect(waits).toEqual([100, 200]);
    expect(retryAfterMs('Wed, 25 Nov 2026 08:00:10 GMT', Date.parse('2026-11-25T08:00:00Z'))).toBe(10_000);
  });
});

test('query values are written as ASP.NET binds them, at any depth', () => {
  expect(
    aspNetQuery({
      Weight: 12.5,
      Direct: false,
      Empty: [],
      Gone: null,
      Services: ['16', '35'],
      Parcels: [
        { Weight: 2, Dims: { Length: 60 } },
        { Weight: 3, Tags: ['a b', 'æ'] },
      ],
      PickupDate: new Date('2026-11-23T08:00:00Z'),
    }),
  ).toBe(
    [
      'Weight=12.5',
      'Direct=false',
      'Services=16',
      'Services=35',
      'Parcels%5B0%5D.Weight=2',
      'Parcels%5B0%5D.Dims.Length=60',
      'Parcels%5B1%5D.Weight=3',
      'Parcels%5B1%5D.Tags=a%20b',
      'Parcels%5B1%5D.Tags=%C3%A6',
      'PickupDate=2026-11-23T08%3A00%3A00.000Z',
    ].join('&'),
  );
});

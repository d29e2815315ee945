import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, invoiceUpTo, pickUp, type TestContext } from '../helpers';

// CONTRACT §14: integrations written for the original service move to Kolli by changing the host.
// Each request below is one the original's developer pages document (shared facts of the original,
// `portal-facts.md`), replayed over real HTTP against a listening server, in the spelling real
// clients send: a .NET client (dates with +01:00 and 7 fraction digits, numbers as strings, 0 for an
// unset int) and a JavaScript client (Node's fetch, `toISOString()` dates).

let now = new Date('2026-11-23T09:00:00Z'); // Monday 10:00 in Oslo
let ctx: TestContext;
let base: string;
let keyId: string;
let key: string;

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => now });
  await ctx.keyFor({ customerNrs: ['1000'], scopes: ['price'] }); // creates customer 1000
  const created = await ctx.services.auth.createKey({
    name: 'integration',
    customerNrs: ['1000'],
    scopes: ['booking', 'shipments', 'price', 'invoice', 'webhooks'],
  });
  keyId = created.Id;
  key = created.Key;
  base = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => ctx.close());

/** `S/Authentication`: the form the page gives, on the original's token path. */
async function login(): Promise<string> {
  const res = await fetch(`${base}/as/token.oauth2`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `client_id=norway-customer-api&grant_type=password&username=${encodeURIComponent(keyId)}&password=${encodeURIComponent(key)}`,
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { access_token: string };
  // The page tells clients to read `exp` from the token: it is a JWT.
  const payload = JSON.parse(Buffer.from(body.access_token.split('.')[1] ?? '', 'base64url').toString());
  expect(payload.exp).toBeGreaterThan(0);
  return body.access_token;
}

type Style = 'dotnet' | 'javascript';

/** A client with no change but the base URL: its own content type and date and number habits. */
function client(style: Style, token: string) {
  const contentType = style === 'dotnet' ? 'application/json; charset=utf-8' : 'application/json';
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': contentType }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
  };
  /** Midnight of an Oslo date as the client writes a DateTime. */
  const date = (d: string) =>
    style === 'dotnet' ? `${d}T00:00:00.0000000+01:00` : new Date(`${d}T00:00:00+01:00`).toISOString(); // 2026-11-22T23:00:00.000Z
  /** A number as the client sends it. */
  const num = (n: number) => (style === 'dotnet' ? String(n) : n);
  return { call, date, num };
}

/** `POST /v2/Shipment/Book` as on its page: Addresses list, contact fields top-level. */
const v2Body = (c: ReturnType<typeof client>, status: string, extra: Record<string, unknown> = {}) => ({
  Parcels: [{ Weight: c.num(12.5), Length: c.num(60), Width: c.num(40), Height: c.num(30), Volume: 0 }],
  ShipmentStatus: status,
  CustomerId: '1000',
  Addresses: [
    {
      AddressTypeId: c.num(1),
      CompanyName: 'Demo Kunde AS',
      Address: 'Karl Johans gate 1',
      Zip: '0154',
      Place: 'OSLO',
    },
    {
      AddressTypeId: 2,
      FirstName: 'Åse',
      LastName: 'Øvrebø',
      Address: 'Bryggen 1',
      Zip: '5003',
      Place: 'BERGEN',
      Country: 'NO',
    },
  ],
  PickupPhone: '+47 22 00 00 00',
  RecipientEmail: 'ase@example.no',
  ProductCode: '43',
  Services: ['16'],
  CommentToCarrier: null,
  GoodsDescription: 'Books',
  DeliveryType: 0, // DeliveryTypeEnum Private = 0
  PickupPointId: 0, // a .NET int left unset
  RecipientCustomerId: 0,
  ...extra,
});

const booked: Record<Style, string> = { dotnet: '', javascript: '' };
const bookedParcels: Record<Style, string[]> = { dotnet: [], javascript: [] };

describe.each(['dotnet', 'javascript'] as const)('a %s client, with no change but the host', (style) => {
  test('books (v2 Book, v2 Update), reads, and prices (v2 and v3 with repeated service)', async () => {
    const c = client(style, await login());
    const draft = await c.call('POST', '/v2/Shipment/Book', v2Body(c, 'Draft'));
    expect(draft.status, draft.text).toBe(201);
    expect(draft.body).toMatchObject({ ShipmentStatus: 0, ReturnShipmentId: null });
    const id = String(draft.body.ShipmentId);
    const [parcelId] = draft.body.ParcelIds as string[];

    // "Draft may be changed freely": ReadyForPublish, then Published through /v2/Shipment/Update.
    const ready = await c.call('POST', '/v2/Shipment/Update', {
      ...v2Body(c, 'ReadyForPublish'),
      ShipmentId: id,
      Parcels: [{ ParcelId: parcelId, Weight: c.num(12.5) }],
    });
    expect(ready.status, ready.text).toBe(200);
    expect(ready.body.ShipmentStatus).toBe(1);
    const published = await c.call('POST', '/v2/Shipment/Update', {
      ...v2Body(c, 'Published'),
      ShipmentId: id,
      Parcels: [{ ParcelId: parcelId }],
    });
    expect(published.status, published.text).toBe(200);
    // "once published it is booked and can no longer change"
    expect(
      (await c.call('POST', '/v2/Shipment/Update', { ...v2Body(c, 'Draft'), ShipmentId: id })).status,
    ).toBe(409);

    const read = await c.call('GET', `/v2/Shipment/${id}`);
    expect(read.status).toBe(200);
    const [record] = read.body as Record<string, unknown>[];
    expect(record).toMatchObject({ ParcelStatus: 2, ShipmentId: id, Weight: 12.5, Length: 60, Volume: null });
    expect(record?.PickupPointId).toBeNull(); // 0 was "not given"
    expect(record?.RecipientCustomerId).toBeNull();
    expect(((record?.Addresses ?? []) as { AddressTypeId: number }[]).map((a) => a.AddressTypeId)).toEqual([
      1, 2,
    ]);
    booked[style] = id;
    bookedParcels[style] = [String(parcelId)];

    // GET /v3/Calculate with the page's own spelling of the list: ?service=..&service=..
    const v3 = await c.call(
      'GET',
      `/v3/Calculate?Customernr=1000&SenderZip=0154&ReceiverZip=5003&Weight=13&ProductCode=43&service=16&service=35&PickupDate=${encodeURIComponent(c.date('2026-11-23'))}`,
    );
    expect(v3.status, v3.text).toBe(200);
    expect((v3.body.Services as { ServiceCode: string }[]).map((s) => s.ServiceCode)).toEqual(['16', '35']);
    const v2 = await c.call(
      'GET',
      `/v2/PriceCalculator?customer_nr=1000&sender_zip=0154&receiver_zip=5003&weight=13&product_type=43&service=16&service=35&pickup_date=${encodeURIComponent(c.date('2026-11-23'))}`,
    );
    expect(v2.status, v2.text).toBe(200);
    expect(v2.body.Total).toBe(v3.body.Total);
  });

  test('POST /Shipment/Book (v1 flat body) creates, and only creates', async () => {
    const c = client(style, await login());
    const body = {
      Parcels: [{ Weight: c.num(3), Length: 0, Height: 0, Width: 0 }],
      ShipmentStatus: 'Published',
      CustomerId: style === 'dotnet' ? 1000 : '1000', // a number where a string is typed
      ProductCode: '43',
      DeliveryType: 'Company',
      Services: style === 'dotnet' ? [16] : ['16'],
      PickupCompanyName: 'Demo Kunde AS',
      PickupAddress: 'Karl Johans gate 1',
      PickupZip: '0154',
      PickupPlace: 'OSLO',
      RecipientCompanyName: 'Fjord Frakt AS',
      RecipientAddress: 'Bryggen 1',
      RecipientZip: '5003',
      RecipientPlace: 'BERGEN',
      RecipientEmail: 'post@fjordfrakt.no',
      PickupPointId: 0,
    };
    const res = await c.call('POST', '/Shipment/Book', body);
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('location')).toBe(`/v2/Shipment/${res.body.ShipmentId}`);
    const again = await c.call('POST', '/Shipment/Book', { ...body, ShipmentId: res.body.ShipmentId });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });

  test('POST /v2/Shipment/Book with an SSCC as ShipmentId, as the page recommends', async () => {
    const c = client(style, await login());
    const sscc = style === 'dotnet' ? '370900010000012342' : '370900010000012359';
    const res = await c.call('POST', '/v2/Shipment/Book', { ...v2Body(c, 'Draft'), ShipmentId: sscc });
    expect(res.status, res.text).toBe(201);
    expect(res.body.ShipmentId).toBe(sscc);
  });

  test('POST /v1/Webhooks with the page’s sample answers 200 with the record; GET answers it too', async () => {
    const c = client(style, await login());
    const res = await c.call('POST', '/v1/Webhooks', {
      eventValue: bookedParcels[style][0],
      eventValueType: 1, // an 18-digit parcel number
      url: 'https://93.184.216.34/kolli-events',
      customHeaders: '{"X-Api-Client":"erp"}',
      secret: 'a-shared-secret',
      expires:
        style === 'dotnet'
          ? '2027-01-23T10:15:00.0000000+01:00'
          : new Date('2027-01-23T09:15:00Z').toISOString(),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ eventValueType: 1, url: 'https://93.184.216.34/kolli-events' });
    expect(res.body.expires).toMatch(/^2027-01-23T10:15:00/);
    const got = await c.call('GET', `/v1/Webhooks/${res.body.uuid}`);
    expect(got.status).toBe(200);
    expect(got.body.uuid).toBe(res.body.uuid);
    const bad = await c.call('GET', '/v1/Webhooks/not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ type: 'https://tools.ietf.org/html/rfc7231#section-6.5.1', state: 400 });
    expect(Object.keys(bad.body.errors)).toEqual(['webhookId']);
  });
});

describe('invoice reports, as both clients ask for them', () => {
  beforeAll(async () => {
    now = new Date('2026-11-24T12:00:00Z');
    await pickUp(ctx, Object.values(bookedParcels).flat(), '2026-11-23T11:00:00', 'compat');
    now = new Date('2026-11-30T09:00:00Z');
    await invoiceUpTo(ctx, '2026-11-25');
  });

  test.each(['dotnet', 'javascript'] as const)(
    '%s: v2 and the three v3 reports, reconciling',
    async (style) => {
      const c = client(style, await login());
      const from = encodeURIComponent(c.date('2026-11-23'));
      const q = `Customernr=1000&Payer=S&FromPickupDate=${from}&ToPickupDate=${from}`;
      const v2 = await c.call('GET', `/v2/Invoice/GetInvoiceReport?${q}`);
      expect(v2.status, v2.text).toBe(200);
      expect(v2.body.map((r: { ShipmentNr: string }) => r.ShipmentNr).sort()).toEqual(
        Object.values(booked).sort(),
      );
      for (const path of ['/v3/InvoiceGetInvoiceReport', '/v3/Invoice/GetInvoiceReport']) {
        const v3 = await c.call('GET', `${path}?${q}`);
        expect(v3.status, v3.text).toBe(200);
        expect(v3.body.map((r: { TotalFreightPrice: number }) => r.TotalFreightPrice)).toEqual(
          v2.body.map((r: { TotalFreightPrice: number }) => r.TotalFreightPrice),
        );
        expect(v3.body[0]).toHaveProperty('GiroKid');
      }
      const invoiceNr = v2.body[0].InvoiceNr;
      const byNr = await c.call(
        'GET',
        `/v3/Invoice/GetInvoiceReportByInvoicenr?Customernr=${c.num(1000)}&Invoicenr=${invoiceNr}`,
      );
      expect(byNr.status, byNr.text).toBe(200);
      expect(byNr.body.length).toBeGreaterThanOrEqual(2);
    },
  );
});

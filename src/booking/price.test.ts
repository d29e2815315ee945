import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osloBergenBooking } from '../../test/factories';
import { bearer, buildTestApp, invoiceUpTo, json, pickUp, type TestContext } from '../../test/helpers';

// Issue 20: GET /v2/Shipment/{id}/price answers the frozen lines the invoice carries (to the øre),
// a draft its current quote; shipment reads, labels and invoice reads answer ETag and 304.

let now = new Date('2026-11-23T09:00:00Z');
let ctx: TestContext;
let key: string;
let otherKey: string;

interface Price {
  ShipmentId: string;
  ShipmentStatus: number;
  Quote: boolean;
  Currency: string;
  Lines: { CostCode: string; CostName: string; AmountKr: number }[];
  Total: number;
}

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => now });
  key = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['booking', 'shipments', 'invoice', 'labels'] });
  otherKey = await ctx.keyFor({ customerNrs: ['2000'], scopes: ['shipments'] });
});
afterAll(() => ctx.close());

const book = async (over: Record<string, unknown> = {}) => {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: bearer(key),
    payload: osloBergenBooking({ Services: ['16'], RecipientEmail: 'post@fjordfrakt.no', ...over }),
  });
  expect(res.statusCode, res.body).toBe(201);
  return json<{ ShipmentId: string; ParcelIds: string[] }>(res);
};
const get = (url: string, headers: Record<string, string> = {}, k = key) =>
  ctx.app.inject({ url, headers: { ...bearer(k), ...headers } });
const cents = (kr: number) => Math.round(kr * 100);

test('a pickup-point shipment is planned and priced to the point, where its label routes it, not to the recipient', async () => {
  const kirkenes = {
    ProductCode: 'PP',
    DeliveryType: 'Private',
    PickupPointId: 19900,
    PickupPointCompanyName: 'Kolli sandbox point KIRKENES 9900',
    PickupPointAddress: 'Sandkassevegen 3',
    PickupPointZip: '9900',
    PickupPointPlace: 'KIRKENES',
  };
  const inOslo = await book({ ...kirkenes, RecipientZip: '0150', RecipientPlace: 'OSLO' });
  const atThePoint = await book({ ...kirkenes, RecipientZip: '9900', RecipientPlace: 'KIRKENES' });
  const [a, b] = await Promise.all(
    [inOslo, atThePoint].map(async (s) => ({
      price: json<Price>(await get(`/v2/Shipment/${s.ShipmentId}/price`)).Total,
      delivery: json<{ DeliveryDate: string }>(await get(`/v2/Shipment/${s.ShipmentId}`)).DeliveryDate,
    })),
  );
  expect(a).toEqual(b);
});

describe('the booked price', () => {
  let published: { ShipmentId: string; ParcelIds: string[] };
  let price: Price;

  beforeAll(async () => {
    published = await book({ Parcels: [{ Weight: 12.5, Length: 60, Width: 40, Height: 30 }, { Weight: 4 }] });
    const res = await get(`/v2/Shipment/${published.ShipmentId}/price`);
    expect(res.statusCode, res.body).toBe(200);
    price = json<Price>(res);
  });

  test('a published shipment answers its frozen lines and their Total', () => {
    expect(price).toMatchObject({
      ShipmentId: published.ShipmentId,
      ShipmentStatus: 2,
      Quote: false,
    });
    expect(price.Currency).toBe('NOK');
    expect(price.Lines.length).toBeGreaterThanOrEqual(2);
    expect(price.Lines.map((l) => l.CostCode)).toContain('FREIGHT');
    expect(cents(price.Total)).toBe(price.Lines.reduce((s, l) => s + cents(l.AmountKr), 0));
  });

  test('reading it again answers the same frozen price', async () => {
    const again = json<Price>(await get(`/v2/Shipment/${published.ShipmentId}/price`));
    expect(again).toEqual(price);
  });

  test('a draft answers its current quote, marked as such; a draft without weight answers 409', async () => {
    const draft = await book({ ShipmentStatus: 'Draft' });
    const quote = json<Price>(await get(`/v2/Shipment/${draft.ShipmentId}/price`));
    expect(quote).toMatchObject({ ShipmentStatus: 0, Quote: true });
    expect(quote.Total).toBeGreaterThan(0);
    const bare = await book({ ShipmentStatus: 'Draft', Parcels: [{}] });
    const res = await get(`/v2/Shipment/${bare.ShipmentId}/price`);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  test('tenancy as other shipment reads: another customer’s shipment is 404', async () => {
    expect((await get(`/v2/Shipment/${published.ShipmentId}/price`, {}, otherKey)).statusCode).toBe(404);
    expect((await get('/v2/Shipment/70900019999999999/price')).statusCode).toBe(404);
  });

  test('the invoice carries the same lines, to the øre', async () => {
    now = new Date('2026-11-23T12:00:00Z');
    await pickUp(ctx, published.ParcelIds, '2026-11-23T13:00:00', 'price');
    now = new Date('2026-11-30T09:00:00Z');
    await invoiceUpTo(ctx, '2026-11-29');
    const report = await get(
      '/v2/Invoice/GetInvoiceReport?Customernr=1000&Payer=S&FromPickupDate=2026-11-23&ToPickupDate=2026-11-23',
    );
    const rows =
      json<{ ShipmentNr: string; InvoiceNr: number; Details: { CostCode: string; AmountKr: number }[] }[]>(
        report,
      );
    const row = rows.find((r) => r.ShipmentNr === published.ShipmentId);
    expect(row).toBeDefined();
    const byCode = (lines: { CostCode: string; AmountKr: number }[]) =>
      lines.map((l) => [l.CostCode, cents(l.AmountKr)]).sort();
    expect(byCode(row?.Details ?? [])).toEqual(byCode(price.Lines));
    // After invoicing the answer is still the same frozen price.
    expect(json<Price>(await get(`/v2/Shipment/${published.ShipmentId}/price`))).toEqual(price);

    // Conditional GET of invoice reads: the JSON report, and the PDF (checked before rendering).
    const tag = report.headers.etag as string;
    expect(tag).toMatch(/^"[^"]+"$/);
    const same = await get(
      '/v2/Invoice/GetInvoiceReport?Customernr=1000&Payer=S&FromPickupDate=2026-11-23&ToPickupDate=2026-11-23',
      { 'if-none-match': tag },
    );
    expect(same.statusCode).toBe(304);
    expect(same.body).toBe('');
    const pdf = await get(`/v1/Invoice/${row?.InvoiceNr}/pdf`);
    expect(pdf.statusCode).toBe(200);
    const pdfTag = pdf.headers.etag as string;
    expect(pdfTag).toBeTruthy();
    const notModified = await get(`/v1/Invoice/${row?.InvoiceNr}/pdf`, { 'if-none-match': `W/${pdfTag}` });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.rawPayload.length).toBe(0);
  });
});

describe('conditional GET', () => {
  test('a shipment read answers its version as ETag; If-None-Match with it answers 304 without a body', async () => {
    const { ShipmentId } = await book({ ShipmentStatus: 'Draft' });
    const first = await get(`/v2/Shipment/${ShipmentId}`);
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    const again = await get(`/Shipment/${ShipmentId}`, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    // Another tag, or the shipment changed: the full answer.
    expect((await get(`/v2/Shipment/${ShipmentId}`, { 'if-none-match': '"other"' })).statusCode).toBe(200);
    const update = await ctx.app.inject({
      method: 'POST',
      url: '/Shipment/Update',
      headers: bearer(key),
      payload: osloBergenBooking({ ShipmentId, ShipmentStatus: 'Draft', GoodsDescription: 'Books' }),
    });
    expect(update.statusCode, update.body).toBe(200);
    const changed = await get(`/v2/Shipment/${ShipmentId}`, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });

  test('labels answer an ETag (PDF and ZPL differ) and 304 for it', async () => {
    const { ShipmentId } = await book();
    const pdf = await get(`/v1/labels/${ShipmentId}`);
    const zpl = await get(`/v1/labels/${ShipmentId}?format=zpl`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers.etag).toBeTruthy();
    expect(zpl.headers.etag).toBeTruthy();
    expect(zpl.headers.etag).not.toBe(pdf.headers.etag);
    const again = await get(`/v1/labels/${ShipmentId}`, { 'if-none-match': pdf.headers.etag as string });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    expect((await get(`/v1/labels/${ShipmentId}?format=zpl`, { 'if-none-match': '*' })).statusCode).toBe(304);
  });

  test('invoice lines answer an ETag of their content', async () => {
    const url = '/v1/Invoice/GetInvoiceDetails?Customernr=1000&Invoicenr=999999';
    const first = await get(url);
    expect(first.statusCode).toBe(200);
    const again = await get(url, { 'if-none-match': first.headers.etag as string });
    expect(again.statusCode).toBe(304);
  });

  test('answers other than 200, and unmarked routes, are never turned into 304', async () => {
    const missing = await get('/v2/Shipment/70900019999999999', { 'if-none-match': '*' });
    expect(missing.statusCode).toBe(404);
    const products = await ctx.app.inject({
      url: '/v1/products',
      headers: { ...bearer(key), 'if-none-match': '*' },
    });
    expect(products.statusCode).not.toBe(304);
  });
});

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osloBergenAddresses } from '../../test/factories';
import { bearer, buildTestApp, invoiceUpTo, json, type TestContext } from '../../test/helpers';
import { isKid } from '../lib/kid';

// The v3 invoice reports (CONTRACT §14): the v2 record plus eight fields, same access rules,
// reconciling with v1, v2 and the invoice itself to the øre.

let now = new Date('2026-11-23T09:00:00Z');
let ctx: TestContext;
let key: string; // 1000 and 3000
let otherKey: string; // 2000 only
let opsKey: string;

interface Booked {
  ShipmentId: string;
  ParcelIds: string[];
}
type V3 = Record<string, unknown> & {
  ShipmentNr: string;
  TotalFreightPrice: number;
  InvoiceNr: number;
  Details: { AmountKr: number }[];
};

const get = (url: string, k = key) => ctx.app.inject({ url, headers: bearer(k) });
const ore = (kr: number) => Math.round(kr * 100);
let palletId: string;
let parcelsId: string;
let invoiceNr: number;
let invoiceTotal: number;

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => now });
  key = await ctx.keyFor({ customerNrs: ['1000', '3000'], scopes: ['booking', 'shipments', 'invoice'] });
  otherKey = await ctx.keyFor({ customerNrs: ['2000'], scopes: ['invoice'] });
  opsKey = await ctx.keyFor({ customerNrs: [], scopes: ['ops'] });
  const book = async (over: Record<string, unknown>) => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v2/Shipment/Book',
      headers: bearer(key),
      payload: {
        ShipmentStatus: 'Published',
        CustomerId: '1000',
        ProductCode: '43',
        DeliveryType: 1,
        SenderReference: 'ORDER-2026-000123-XYZ',
        Addresses: osloBergenAddresses(),
        ...over,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return json<Booked>(res);
  };
  const parcels = await book({
    Parcels: [{ Weight: 12.5, Length: 60, Width: 40, Height: 30 }, { Weight: 4 }],
  });
  const pallets = await book({
    UnitCode: 'PL',
    // A 240×120 cm pallet (1.2 loading metres) and one of unknown floor (a EUR pallet, 0.4).
    Parcels: [{ Weight: 300, Length: 240, Width: 120, Height: 100 }, { Weight: 250 }],
  });
  palletId = pallets.ShipmentId;
  parcelsId = parcels.ShipmentId;
  now = new Date('2026-11-24T12:00:00Z');
  let n = 0;
  for (const b of [parcels, pallets]) {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/ops/scans',
      headers: bearer(opsKey),
      payload: {
        Events: b.ParcelIds.map((ParcelId) => ({
          EventId: `v3-${++n}`,
          ParcelId,
          EventType: 'PickedUp',
          Time: '2026-11-23T11:00:00',
        })),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const results = json<{ Results: { Status: string }[] }>(res).Results;
    expect(
      results.every((r) => r.Status === 'accepted'),
      res.body,
    ).toBe(true);
  }
  now = new Date('2026-11-30T09:00:00Z');
  const run = await invoiceUpTo(ctx, '2026-11-25');
  const [invoice] = json<{ Invoices: { InvoiceNr: number; Total: number }[] }>(run).Invoices;
  invoiceNr = invoice?.InvoiceNr ?? 0;
  invoiceTotal = invoice?.Total ?? 0;
});
afterAll(() => ctx.close());

const QUERY = 'Customernr=1000&Payer=S&FromPickupDate=2026-11-23&ToPickupDate=2026-11-23';

describe('v3 invoice reports', () => {
  test('both report paths answer the v2 record plus the eight v3 fields, with the spec types', async () => {
    const v2 = json<V3[]>(await get(`/v2/Invoice/GetInvoiceReport?${QUERY}`));
    for (const path of ['/v3/InvoiceGetInvoiceReport', '/v3/Invoice/GetInvoiceReport']) {
      const res = await get(`${path}?${QUERY}`);
      expect(res.statusCode, res.body).toBe(200);
      const v3 = json<V3[]>(res);
      expect(v3).toHaveLength(2);
      for (const [i, r] of v3.entries()) {
        const extra = Object.keys(r).filter((k) => !(k in (v2[i] ?? {})));
        expect(extra.sort()).toEqual(
          [
            'GiroKid',
            'LoadingMeters',
            'OrderReference',
            'PalletPlaces',
            'PaymentCode',
            'RecipientReference',
            'UnitCode',
            'Units',
          ].sort(),
        );
        // Every v2 field, with the same value.
        expect(Object.fromEntries(Object.keys(v2[i] ?? {}).map((k) => [k, r[k]]))).toEqual(v2[i]);
        expect(isKid(String(r.GiroKid))).toBe(true);
        expect(r.PaymentCode).toBe('S');
        expect(r.OrderReference).toBe('ORDER-2026-0001'); // cut to 15 characters, as on v1
        expect(r.RecipientReference).toBeNull();
      }
      const pallet = v3.find((r) => r.ShipmentNr === palletId);
      // The metres the shipment's record shows and its price charged, not two EUR pallets' 0.8.
      expect(pallet).toMatchObject({ UnitCode: 'PL', Units: 2, PalletPlaces: 2, LoadingMeters: 1.6 });
      const [record] = json<{ LoadingMeters: number }[]>(await get(`/v2/Shipment/${palletId}`));
      expect(record?.LoadingMeters).toBe(1.6);
      expect(v3.find((r) => r.ShipmentNr === parcelsId)).toMatchObject({
        UnitCode: 'KL',
        Units: 2,
        PalletPlaces: 0,
        LoadingMeters: 0,
      });
    }
  });

  test('by invoice number: the invoice’s shipments; reconciles with v1, v2 and the invoice to the øre', async () => {
    const res = await get(`/v3/Invoice/GetInvoiceReportByInvoicenr?Customernr=1000&Invoicenr=${invoiceNr}`);
    expect(res.statusCode, res.body).toBe(200);
    const byInvoice = json<V3[]>(res);
    expect(byInvoice.map((r) => r.ShipmentNr).sort()).toEqual([palletId, parcelsId].sort());
    expect(byInvoice.every((r) => r.InvoiceNr === invoiceNr)).toBe(true);
    const totalOre = (rows: V3[]) => rows.reduce((s, r) => s + ore(r.TotalFreightPrice), 0);
    expect(totalOre(byInvoice)).toBe(ore(invoiceTotal));
    for (const r of byInvoice) {
      expect(r.Details.reduce((s, d) => s + ore(d.AmountKr), 0)).toBe(ore(r.TotalFreightPrice));
    }
    const v3 = json<V3[]>(await get(`/v3/Invoice/GetInvoiceReport?${QUERY}`));
    const v2 = json<V3[]>(await get(`/v2/Invoice/GetInvoiceReport?${QUERY}`));
    const v1 = json<{ NetShipping: string }[]>(await get(`/v1/InvoiceGetInvoiceReport?${QUERY}`));
    expect(totalOre(v3)).toBe(ore(invoiceTotal));
    expect(totalOre(v2)).toBe(ore(invoiceTotal));
    expect(v1.reduce((s, r) => s + ore(Number(r.NetShipping)), 0)).toBe(ore(invoiceTotal));
  });

  test('same access rules as v2: 403 for a customer the key cannot act for; another payer’s invoice is empty', async () => {
    const forbidden = await get(`/v3/Invoice/GetInvoiceReport?${QUERY}`, otherKey);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.headers['content-type']).toMatch(/text\/plain/);
    expect(
      (await get(`/v3/Invoice/GetInvoiceReportByInvoicenr?Customernr=1000&Invoicenr=${invoiceNr}`, otherKey))
        .statusCode,
    ).toBe(403);
    const notTheirs = await get(
      `/v3/Invoice/GetInvoiceReportByInvoicenr?Customernr=3000&Invoicenr=${invoiceNr}`,
    );
    expect(notTheirs.statusCode).toBe(200);
    expect(json(notTheirs)).toEqual([]);
  });

  test('bad parameters are a 400 naming each field', async () => {
    const res = await get('/v3/Invoice/GetInvoiceReportByInvoicenr?Customernr=abc&Invoicenr=x');
    expect(res.statusCode).toBe(400);
    expect(Object.keys(json<{ errors: object }>(res).errors).sort()).toEqual(['Customernr', 'Invoicenr']);
    const report = await get(
      '/v3/InvoiceGetInvoiceReport?Customernr=1000&Payer=Q&FromPickupDate=2026-11-23&ToPickupDate=2026-11-01',
    );
    expect(Object.keys(json<{ errors: object }>(report).errors).sort()).toEqual(['Payer', 'ToPickupDate']);
  });
});

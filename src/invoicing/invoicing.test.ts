import { sql } from 'drizzle-orm';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osloBergenBooking, toGothenburg } from '../../test/factories';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import { outboxEvents } from '../events/tables';
import { contentTag } from '../http/conditional';
import { claimTick } from '../jobs/ticks';
import { isKid } from '../lib/kid';
import { V1_COST_FIELDS } from './cost-codes';
import { nokText } from './format';
import { reportPages } from './reports';
import { scheduleInvoicing } from './scheduled';
import { createInvoicingService } from './service';
import { invoiceNumbers, invoiceRuns, invoiceShipments, invoices } from './tables';
import { allocateVat } from './vat';

// Monday 23 November 2026, 10:00 in Oslo; invoicing runs a week later.
let now = new Date('2026-11-23T09:00:00Z');

let ctx: TestContext;
let senderKey: string; // 1000, may name 3000 as paying recipient and 4000 as third-party payer
let recipientKey: string; // 3000
let thirdKey: string; // 4000
let opsKey: string;

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => now });
  senderKey = await ctx.keyFor({
    customerNrs: ['1000', '3000', '4000'],
    scopes: ['booking', 'shipments', 'invoice'],
  });
  recipientKey = await ctx.keyFor({ customerNrs: ['3000'], scopes: ['invoice'] });
  thirdKey = await ctx.keyFor({ customerNrs: ['4000'], scopes: ['invoice'] });
  opsKey = await ctx.keyFor({ customerNrs: [], scopes: ['ops'] });
});
afterAll(() => ctx.close());

interface Booked {
  ShipmentId: string;
  ParcelIds: string[];
}

let scanSeq = 0;

async function book(over: Record<string, unknown> = {}, key = senderKey): Promise<Booked> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: bearer(key),
    payload: osloBergenBooking({
      SenderReference: 'ORDER-2026-000123-XYZ',
      Parcels: [{ Weight: 12.5, Length: 60, Width: 40, Height: 30 }, { Weight: 4 }],
      ...over,
    }),
  });
  expect(res.statusCode, res.body).toBe(201);
  return json<Booked>(res);
}

/** Scans every parcel of `b` (the i-th at `times[i]`, else the first time); each must be accepted. */
async function scan(b: Booked, EventType: string, times: string[]) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/ops/scans',
    headers: bearer(opsKey),
    payload: {
      Events: b.ParcelIds.map((p, i) => ({
        EventId: `inv-${++scanSeq}`,
        ParcelId: p,
        EventType,
        Time: times[i] ?? times[0],
      })),
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(json<{ Results: { Status: string }[] }>(res).Results.every((r) => r.Status === 'accepted')).toBe(
    true,
  );
}

const pickUp = (b: Booked, times: string[]) => scan(b, 'PickedUp', times);

const run = (ToDate: unknown) =>
  ctx.app.inject({
    method: 'POST',
    url: '/admin/invoicing/runs',
    headers: bearer(ADMIN_KEY),
    payload: { ToDate },
  });
const get = (url: string, key = senderKey) => ctx.app.inject({ url, headers: bearer(key) });
/** Invoicing over the test app's services and clock, with some of its dependencies replaced. */
const invoicingWith = (over: Partial<Parameters<typeof createInvoicingService>[0]>) =>
  createInvoicingService({
    db: ctx.database.db,
    booking: ctx.services.booking,
    catalog: ctx.services.catalog,
    customers: ctx.services.customers,
    postalCodes: ctx.services.postalCodes,
    nokPerEur: async () => '11.5',
    seller: ctx.config.seller,
    clock: () => now,
    ...over,
  });
const frozenTotal = async (id: string) => {
  const r = await ctx.database.db.execute(
    sql`select (price->>'TotalOre')::bigint as t from shipments where id = ${id}`,
  );
  return Number((r as unknown as { rows: { t: string }[] }).rows[0]?.t);
};

interface RunBody {
  RunId: number;
  Invoices: { InvoiceNr: number; CustomerNr: string; Total: number }[];
}

let sender: Booked;
let recipientPays: Booked;
let thirdPays: Booked;
let notPickedUp: Booked;
let later: Booked;
let first: RunBody;

describe('an invoicing run', () => {
  beforeAll(async () => {
    sender = await book();
    recipientPays = await book({ RecipientShallPay: true, RecipientCustomerId: 3000 });
    thirdPays = await book({ PayerCustomerId: 4000, SenderReference: 'SHORT' });
    notPickedUp = await book();
    later = await book();
    now = new Date('2026-11-24T12:00:00Z');
    await pickUp(sender, ['2026-11-23T10:30:00', '2026-11-24T08:15:00']); // split over two days
    await pickUp(recipientPays, ['2026-11-23T10:35:00']);
    await pickUp(thirdPays, ['2026-11-23T10:40:00']);
    now = new Date('2026-11-26T09:00:00Z');
    await pickUp(later, ['2026-11-26T09:30:00']);
    now = new Date('2026-11-30T09:00:00Z');
    const res = await run('2026-11-25');
    expect(res.statusCode, res.body).toBe(201);
    first = json<RunBody>(res);
  });

  test('invoices each payer once, numbered without gaps, in customer-number order', () => {
    expect(first.Invoices.map((i) => i.CustomerNr)).toEqual(['1000', '3000', '4000']);
    const numbers = first.Invoices.map((i) => i.InvoiceNr);
    expect(numbers).toEqual([numbers[0], (numbers[0] ?? 0) + 1, (numbers[0] ?? 0) + 2]);
  });

  test('invoices only picked-up shipments up to ToDate, each exactly once', async () => {
    const rows = await ctx.database.db.select().from(invoiceShipments);
    const ids = rows.map((r) => r.shipmentId).sort();
    expect(ids).toEqual([sender.ShipmentId, recipientPays.ShipmentId, thirdPays.ShipmentId].sort());
    expect(ids).not.toContain(notPickedUp.ShipmentId);
    expect(ids).not.toContain(later.ShipmentId);
  });

  test('invoice totals reconcile with the frozen quoted totals to the øre', async () => {
    for (const [invoice, shipment] of [
      [first.Invoices[0], sender],
      [first.Invoices[1], recipientPays],
      [first.Invoices[2], thirdPays],
    ] as const) {
      const quoted = await frozenTotal(shipment.ShipmentId);
      expect(Math.round((invoice?.Total ?? 0) * 100)).toBe(quoted);
      const res = await get(
        `/v1/Invoice/GetInvoiceDetails?Customernr=${invoice?.CustomerNr}&Invoicenr=${invoice?.InvoiceNr}`,
        invoice?.CustomerNr === '3000' ? recipientKey : senderKey,
      );
      expect(res.statusCode, res.body).toBe(200);
      const lines = json<{ AmountKr: number }[]>(res);
      expect(lines.length).toBeGreaterThan(1);
      expect(lines.reduce((s, l) => s + Math.round(l.AmountKr * 100), 0)).toBe(quoted);
    }
  });

  test('the KID is the invoice number with its MOD10 check digit; due date 14 days later', async () => {
    const rows = await ctx.database.db.select().from(invoices);
    expect(rows.length).toBe(3);
    for (const r of rows) {
      expect(r.kid.slice(0, -1)).toBe(String(r.invoiceNr));
      expect(isKid(r.kid)).toBe(true);
      expect(r.invoiceDate).toBe('2026-11-30');
      expect(r.dueDate).toBe('2026-12-14');
    }
  });

  test('each invoice writes an invoice.issued outbox row for its payer', async () => {
    const events = await ctx.database.db.select().from(outboxEvents);
    const issued = events.filter((e) => e.type === 'invoice.issued');
    expect(issued.map((e) => e.customerNr).sort()).toEqual(['1000', '3000', '4000']);
  });

  test('a second run finds nothing left and issues nothing', async () => {
    const res = await run('2026-11-25');
    expect(res.statusCode).toBe(201);
    expect(json<RunBody>(res).Invoices).toEqual([]);
  });

  test('the v1 report lists what the customer paid in the role asked for, with every field', async () => {
    const url = (customer: string, payer: string) =>
      `/v1/InvoiceGetInvoiceReport?Customernr=${customer}&Payer=${payer}&FromPickupDate=2026-11-01&ToPickupDate=2026-11-30`;
    const s = json<Record<string, unknown>[]>(await get(url('1000', 'S')));
    expect(s.map((r) => r.Waybillnr)).toEqual([sender.ShipmentId]);
    expect(json<unknown[]>(await get(url('1000', 'M')))).toEqual([]);
    const m = json<Record<string, unknown>[]>(await get(url('3000', 'M'), recipientKey));
    expect(m.map((r) => r.Waybillnr)).toEqual([recipientPays.ShipmentId]);
    const f = json<Record<string, unknown>[]>(await get(url('4000', 'f'), thirdKey));
    expect(f.map((r) => r.Waybillnr)).toEqual([thirdPays.ShipmentId]);

    const record = s[0] ?? {};
    expect(Object.keys(record).sort()).toEqual(
      [
        'Waybillnr',
        'Sender',
        'PickupZip',
        'Recipient',
        'DeliveryZip',
        'NumberOfParcels',
        'RealWeight',
        'VolumeDm3',
        'CalculationWeight',
        'LoadMeter',
        'GrossShipping',
        'OtherIncome',
        'NetShipping',
        'Product',
        'PaymentCode',
        'InvoiceCustomerNr',
        'InvoiceCustomer',
        'InvoiceNumber',
        'OrderReference',
        'DeliveryTerminal',
        'PickupTerminal',
        'RecipientReference',
        'DeliveryDate',
        'PickupDate',
        'Split',
        'Details',
        // Extension: VAT as on the invoice (docs/invoicing.md, VAT).
        'VatPercent',
        'VatKr',
        'NetShippingInclVat',
      ].sort(),
    );
    expect(record).toMatchObject({
      Sender: 'Demo Kunde AS',
      Recipient: 'Fjord Frakt AS',
      PickupZip: '0154',
      DeliveryZip: '5003',
      NumberOfParcels: '2',
      RealWeight: '16.50',
      Product: '43',
      PaymentCode: 'S',
      InvoiceCustomerNr: '1000',
      InvoiceNumber: String(first.Invoices[0]?.InvoiceNr),
      OrderReference: 'ORDER-2026-0001', // the 15 characters visible on invoices
      PickupDate: '2026-11-23T00:00:00',
      Split: true,
    });
    expect(typeof record.PickupTerminal).toBe('string');
    expect(typeof record.DeliveryTerminal).toBe('string');
    const details = (record.Details as Record<string, string>[])[0] ?? {};
    expect(Object.keys(details).sort()).toEqual(['Waybillnr', ...V1_COST_FIELDS].sort());
    for (const field of V1_COST_FIELDS) expect(details[field]).toMatch(/^-?\d+\.\d{2}$/);
    expect(details.WarehouseRentalKr).toBe('0.00');
    expect(Number(details.AgreedFreightKr)).toBeGreaterThan(0);
    expect(record.NetShipping).toBe(((await frozenTotal(sender.ShipmentId)) / 100).toFixed(2));
    // The sum of the cost line fields is the net shipping.
    const summed = V1_COST_FIELDS.reduce((t, k) => t + Math.round(Number(details[k]) * 100), 0);
    expect(summed).toBe(await frozenTotal(sender.ShipmentId));
    expect(json<Record<string, unknown>[]>(await get(url('4000', 'F'), thirdKey))[0]?.Split).toBe(false);
  });

  test('the v1 report filters on the terminals', async () => {
    const base =
      '/v1/InvoiceGetInvoiceReport?Customernr=1000&Payer=S&FromPickupDate=2026-11-01&ToPickupDate=2026-11-30';
    const all = json<{ PickupTerminal: string; DeliveryTerminal: string }[]>(await get(base));
    const t = all[0];
    expect(json<unknown[]>(await get(`${base}&PickupTerminal=${t?.PickupTerminal}`)).length).toBe(1);
    expect(json<unknown[]>(await get(`${base}&DeliveryTerminal=${t?.DeliveryTerminal}`)).length).toBe(1);
    // In any case, as every code of the interface is read.
    const lower = `${base}&PickupTerminal=${t?.PickupTerminal.toLowerCase()}`;
    expect(json<unknown[]>(await get(lower)).length).toBe(1);
    const lowerTo = `${base}&DeliveryTerminal=${t?.DeliveryTerminal.toLowerCase()}`;
    expect(json<unknown[]>(await get(lowerTo)).length).toBe(1);
    expect(json<unknown[]>(await get(`${base}&PickupTerminal=NOPE`))).toEqual([]);
  });

  test('the v2 report has every field with the spec types and itemised details', async () => {
    const res = await get(
      '/v2/Invoice/GetInvoiceReport?customernr=1000&payer=S&frompickupdate=2026-11-23&topickupdate=2026-11-23',
    );
    expect(res.statusCode, res.body).toBe(200);
    const [r] = json<Record<string, unknown>[]>(res);
    expect(Object.keys(r ?? {}).sort()).toEqual(
      [
        'ShipmentNr',
        'SenderReference',
        'SenderCustomerName',
        'RecipientCustomerName',
        'DeliveryAddress',
        'InvoiceCustomerName',
        'PickupZip',
        'PickupTerminalId',
        'RecipientZip',
        'RecipientTerminalId',
        'GoodsTypeCode',
        'InvoiceLineNr',
        'ProductCode',
        'SenderCustomerNr',
        'RecipientCustomerNr',
        'InvoiceCustomerNr',
        'NumberOfCollis',
        'InvoiceNr',
        'CalculatedWeightKg',
        'RealWeightKg',
        'VolumeDm3',
        'TotalFreightPrice',
        'InvoiceDate',
        'DeliveryDate',
        'PickupDate',
        'OptionCodes',
        'Details',
        // Extension: VAT as on the invoice (docs/invoicing.md, VAT).
        'VatPercent',
        'VatKr',
        'TotalFreightPriceInclVat',
      ].sort(),
    );
    expect(r).toMatchObject({
      ShipmentNr: sender.ShipmentId,
      SenderReference: 'ORDER-2026-0001',
      SenderCustomerNr: 1000,
      InvoiceCustomerNr: 1000,
      NumberOfCollis: 2,
      InvoiceNr: first.Invoices[0]?.InvoiceNr,
      InvoiceLineNr: '1',
      RealWeightKg: 16.5,
      InvoiceDate: '2026-11-30T00:00:00',
      GoodsTypeCode: 'KL',
    });
    const details = r?.Details as { AmountKr: number; CostCode: string; AmountTypeCode: string }[];
    expect(details.find((d) => d.CostCode === 'FREIGHT')?.AmountTypeCode).toBe('F');
    for (const d of details) expect(['F', 'A', 'D', 'S']).toContain(d.AmountTypeCode);
    expect(Math.round(details.reduce((s, d) => s + d.AmountKr * 100, 0))).toBe(
      Math.round(Number(r?.TotalFreightPrice) * 100),
    );
  });

  test('the invoice lines carry the KID, the euro rate of the invoice date and RealWeihtKg', async () => {
    const inv = first.Invoices[0];
    const res = await get(`/v1/Invoice/GetInvoiceDetails?Customernr=1000&Invoicenr=${inv?.InvoiceNr}`);
    const lines = json<Record<string, unknown>[]>(res);
    const line = lines[0] ?? {};
    expect(Object.keys(line).sort()).toEqual(
      [
        'InvoiceNr',
        'Consignment',
        'PickupZip',
        'DeliveryZip',
        'GoodsTypeCode',
        'UnitCode',
        'AmountDescription',
        'CustomerReference',
        'Kid',
        'OrderReference',
        'RecipientName',
        'RowNumber',
        'SenderName',
        'RecipientReference',
        'AmountTxt',
        'AmountTxtEnglish',
        'ProductCode',
        'ProductName',
        'ProductOptions',
        'CustomerNr',
        'NumberOfParcels',
        'PickupDate',
        'VolumeDm3',
        'RealWeihtKg',
        'CalculationWeightKg',
        'AmountKr',
        'AdditionEnergyKr',
        'AmountEuro',
        'ExchangeRateEuro',
        // Extension: VAT as on the invoice (docs/invoicing.md, VAT).
        'VatPercent',
        'VatKr',
      ].sort(),
    );
    expect(isKid(String(line.Kid))).toBe(true);
    expect(line.RealWeihtKg).toBe(16.5);
    expect(line.Consignment).toBe(sender.ShipmentId);
    expect(lines.map((l) => l.RowNumber)).toEqual(lines.map((_, i) => String(i + 1)));
    const freight = lines.find((l) => l.AmountTxt === 'Avtalt frakt');
    expect(freight?.AmountTxtEnglish).toBe('Agreed freight');
    const rate = Number(line.ExchangeRateEuro);
    expect(rate).toBeGreaterThan(5);
    expect(Number(freight?.AmountEuro)).toBeCloseTo(Number(freight?.AmountKr) / rate, 2);
  });

  test('an unknown invoice, or one the customer does not pay, is an empty list', async () => {
    expect(
      json<unknown[]>(await get('/v1/Invoice/GetInvoiceDetails?Customernr=1000&Invoicenr=999999')),
    ).toEqual([]);
    const foreign = first.Invoices[1]?.InvoiceNr; // paid by 3000
    expect(
      json<unknown[]>(await get(`/v1/Invoice/GetInvoiceDetails?Customernr=1000&Invoicenr=${foreign}`)),
    ).toEqual([]);
    // Both numbers are the spec's 32-bit int, as the PDF's path and a credit note take them.
    const top = await get('/v1/Invoice/GetInvoiceDetails?Customernr=1000&Invoicenr=2147483647');
    expect(json<unknown[]>(top)).toEqual([]);
    const past = await get('/v1/Invoice/GetInvoiceDetails?Customernr=2147483648&Invoicenr=2147483648');
    expect(Object.keys(json<{ errors: object }>(past).errors).sort()).toEqual(['Customernr', 'Invoicenr']);
  });

  test('the invoice as PDF: payer, number, KID, each shipment and the total excl. VAT; 404 for other customers', async () => {
    const inv = first.Invoices[0];
    const res = await get(`/v1/Invoice/${inv?.InvoiceNr}/pdf`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    const doc = await getDocument({ data: new Uint8Array(res.rawPayload), verbosity: 0 }).promise;
    const page = await doc.getPage(1);
    const text = (await page.getTextContent()).items.map((item) => ('str' in item ? item.str : '')).join(' ');
    const [row] = await ctx.database.db.select().from(invoices).where(sql`invoice_nr = ${inv?.InvoiceNr}`);
    expect(text).toContain(String(row?.kid));
    expect(text).toContain(sender.ShipmentId);
    expect(text).toContain('Customer 1000 AS');
    expect(text).toContain('Customer no. 1000');
    expect(text).toContain(nokText(Math.round((inv?.Total ?? 0) * 100)));
    expect((await get(`/v1/Invoice/${inv?.InvoiceNr}/pdf`, recipientKey)).statusCode).toBe(404);
    expect((await get('/v1/Invoice/999999/pdf')).statusCode).toBe(404);
    expect((await get('/v1/Invoice/abc/pdf')).statusCode).toBe(400);
  });

  test('a customer the key cannot act for is 403 text/plain', async () => {
    const res = await get(
      '/v1/InvoiceGetInvoiceReport?Customernr=1000&Payer=S&FromPickupDate=2026-11-01&ToPickupDate=2026-11-30',
      recipientKey,
    );
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const noScope = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['booking'] });
    expect((await get('/v1/Invoice/GetInvoiceDetails?Customernr=1000&Invoicenr=1', noScope)).statusCode).toBe(
      403,
    );
  });

  test('a credit note reverses an invoice under a new number; the invoice stays as issued', async () => {
    const original = first.Invoices[0];
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/invoicing/credit-notes',
      headers: bearer(ADMIN_KEY),
      payload: { InvoiceNr: original?.InvoiceNr, Reason: 'Wrong weight' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const note = json<{ InvoiceNr: number; CustomerNr: string; Total: number }>(res);
    expect(note.InvoiceNr).toBe((first.Invoices[2]?.InvoiceNr ?? 0) + 1);
    expect(note.Total).toBe(-(original?.Total ?? 0));
    const [stored] = await ctx.database.db
      .select()
      .from(invoices)
      .where(sql`invoice_nr = ${original?.InvoiceNr}`);
    expect(stored?.totalOre).toBe(Math.round((original?.Total ?? 0) * 100));

    const report = json<{ Waybillnr: string; NetShipping: string; InvoiceNumber: string }[]>(
      await get(
        '/v1/InvoiceGetInvoiceReport?Customernr=1000&Payer=S&FromPickupDate=2026-11-01&ToPickupDate=2026-11-30',
      ),
    );
    expect(report.map((r) => r.InvoiceNumber)).toEqual([String(original?.InvoiceNr), String(note.InvoiceNr)]);
    expect(Number(report[1]?.NetShipping)).toBe(-(original?.Total ?? 0));

    const again = await ctx.app.inject({
      method: 'POST',
      url: '/admin/invoicing/credit-notes',
      headers: bearer(ADMIN_KEY),
      payload: { InvoiceNr: original?.InvoiceNr },
    });
    expect(again.statusCode).toBe(400);
    expect(json<{ errors: object }>(again).errors).toEqual({
      InvoiceNr: [`Every shipment of invoice ${original?.InvoiceNr} is already credited.`],
    });
    // An empty list is a mistake, not "the whole invoice".
    const empty = await ctx.app.inject({
      method: 'POST',
      url: '/admin/invoicing/credit-notes',
      headers: bearer(ADMIN_KEY),
      payload: { InvoiceNr: first.Invoices[1]?.InvoiceNr, ShipmentIds: [] },
    });
    expect(empty.statusCode).toBe(400);
    expect(json<{ errors: Record<string, string[]> }>(empty).errors.ShipmentIds?.[0]).toMatch(/at least 1/);
    // So is a misspelt name: left out, it would credit the whole invoice. Another spelling of a
    // declared name still binds (`shipmentids`).
    const misspelt = await ctx.app.inject({
      method: 'POST',
      url: '/admin/invoicing/credit-notes',
      headers: bearer(ADMIN_KEY),
      payload: { InvoiceNr: first.Invoices[1]?.InvoiceNr, ShipmentId: ['X'], Lines: [] },
    });
    expect(misspelt.statusCode).toBe(400);
    expect(json<{ errors: Record<string, string[]> }>(misspelt).errors).toEqual({
      ShipmentId: ['The ShipmentId field is not one this request takes (a misspelt name?).'],
      Lines: ['The Lines field is not one this request takes (a misspelt name?).'],
    });
    const otherCase = await ctx.app.inject({
      method: 'POST',
      url: '/admin/invoicing/credit-notes',
      headers: bearer(ADMIN_KEY),
      payload: { invoicenr: first.Invoices[1]?.InvoiceNr, shipmentids: [] },
    });
    expect(json<{ errors: Record<string, string[]> }>(otherCase).errors).toEqual({
      ShipmentIds: ['The ShipmentIds field must hold at least 1 items.'],
    });
    const unknown = await ctx.app.inject({
      method: 'POST',
      url: '/admin/invoicing/credit-notes',
      headers: bearer(ADMIN_KEY),
      payload: { InvoiceNr: 999999 },
    });
    expect(unknown.statusCode).toBe(400);
    expect(Object.keys(json<{ errors: object }>(unknown).errors)).toEqual(['InvoiceNr']);
    const huge = await ctx.app.inject({
      method: 'POST',
      url: '/admin/invoicing/credit-notes',
      headers: bearer(ADMIN_KEY),
      payload: { InvoiceNr: 99_999_999_999 },
    });
    expect(huge.statusCode).toBe(400);
  });

  test('after a partial credit, a credit note without ShipmentIds credits the rest of the invoice', async () => {
    // Paid by 4000, so the two make an invoice of their own.
    const [a, b] = [await book({ PayerCustomerId: 4000 }), await book({ PayerCustomerId: 4000 })];
    await pickUp(a, ['2026-11-30T09:50:00']);
    await pickUp(b, ['2026-11-30T09:55:00']);
    const invoice = json<RunBody>(await run('2026-11-30')).Invoices.find((i) => i.CustomerNr === '4000');
    if (!invoice) throw new Error('no invoice for 4000');
    const credit = (payload: object) =>
      ctx.app.inject({
        method: 'POST',
        url: '/admin/invoicing/credit-notes',
        headers: bearer(ADMIN_KEY),
        payload: { InvoiceNr: invoice.InvoiceNr, ...payload },
      });
    const one = await credit({ ShipmentIds: [a.ShipmentId] });
    expect(one.statusCode, one.body).toBe(201);
    const rest = await credit({ Reason: 'the rest' });
    expect(rest.statusCode, rest.body).toBe(201);
    const [first, second] = [json<{ Total: number }>(one).Total, json<{ Total: number }>(rest).Total];
    expect(first).toBe(-(await frozenTotal(a.ShipmentId)) / 100);
    expect(second).toBe(-(await frozenTotal(b.ShipmentId)) / 100);
    expect(Math.round((first + second) * 100)).toBe(-Math.round(invoice.Total * 100));
    expect((await credit({})).statusCode).toBe(400);
  });

  test('two runs at once never invoice a shipment twice and leave no gap in the numbers', async () => {
    const a = await book();
    const b = await book({ RecipientShallPay: true, RecipientCustomerId: 3000 });
    await pickUp(a, ['2026-11-30T10:00:00']);
    await pickUp(b, ['2026-11-30T10:05:00']);
    const [r1, r2] = await Promise.all([run('2026-11-30'), run('2026-11-30')]);
    const issued = [...json<RunBody>(r1).Invoices, ...json<RunBody>(r2).Invoices];
    expect(issued.length).toBe(2);
    const numbers = (await ctx.database.db.select({ n: invoices.invoiceNr }).from(invoices))
      .map((r) => r.n)
      .sort((x, y) => x - y);
    expect(numbers).toEqual(numbers.map((_, i) => (numbers[0] ?? 0) + i));
    const [counter] = await ctx.database.db.select().from(invoiceNumbers);
    expect(counter?.last).toBe(numbers[numbers.length - 1]);
  });
});

test('an international shipment invoices its clearance lines in VariousAmount2Kr, to the øre', async () => {
  const abroad = await book(toGothenburg());
  await pickUp(abroad, ['2026-11-30T09:40:00']);
  const res = await run('2026-11-30');
  expect(res.statusCode, res.body).toBe(201);
  const report = json<{ Waybillnr: string; NetShipping: string; Details: Record<string, string>[] }[]>(
    await get(
      '/v1/InvoiceGetInvoiceReport?Customernr=1000&Payer=S&FromPickupDate=2026-11-30&ToPickupDate=2026-11-30',
    ),
  ).find((r) => r.Waybillnr === abroad.ShipmentId);
  const details = report?.Details[0] ?? {};
  expect(Number(details.VariousAmount2Kr)).toBeGreaterThan(0);
  const summed = V1_COST_FIELDS.reduce((t, k) => t + Math.round(Number(details[k]) * 100), 0);
  expect(summed).toBe(await frozenTotal(abroad.ShipmentId));
});

describe('bad input', () => {
  const report = (query: string) => get(`/v1/InvoiceGetInvoiceReport?${query}`);
  const fields = async (res: Awaited<ReturnType<typeof report>>) => {
    expect(res.statusCode, res.body).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    return Object.keys(json<{ errors: object }>(res).errors).sort();
  };

  test('report parameters are checked and every broken one is named', async () => {
    expect(await fields(await report('Payer=S&FromPickupDate=2026-11-01&ToPickupDate=2026-11-30'))).toContain(
      'Customernr',
    );
    expect(
      await fields(await report('Customernr=10x0&Payer=X&FromPickupDate=2026-13-01&ToPickupDate=yesterday')),
    ).toEqual(['Customernr', 'FromPickupDate', 'Payer', 'ToPickupDate']);
    expect(
      await fields(await report('Customernr=1000&Payer=S&FromPickupDate=2026-11-30&ToPickupDate=2026-11-01')),
    ).toEqual(['ToPickupDate']);
    expect(
      await fields(await report('Customernr=1000&Payer=S&FromPickupDate=2025-01-01&ToPickupDate=2026-11-30')),
    ).toEqual(['ToPickupDate']);
    expect(
      await fields(
        await get(
          '/v2/Invoice/GetInvoiceReport?Customernr=1000&Payer=Q&FromPickupDate=2026-11-01&ToPickupDate=2026-11-30',
        ),
      ),
    ).toEqual(['Payer']);
  });

  test('invoice details need integer numbers', async () => {
    expect(await fields(await get('/v1/Invoice/GetInvoiceDetails?Customernr=1000&Invoicenr=12.5'))).toEqual([
      'Invoicenr',
    ]);
    expect(await fields(await get('/v1/Invoice/GetInvoiceDetails?Customernr=abc&Invoicenr=1'))).toEqual([
      'Customernr',
    ]);
  });

  test('a run needs a date', async () => {
    expect(await fields(await run('30.11.2026'))).toEqual(['ToDate']);
    const noScope = await ctx.app.inject({
      method: 'POST',
      url: '/admin/invoicing/runs',
      headers: bearer(senderKey),
      payload: { ToDate: '2026-11-30' },
    });
    expect(noScope.statusCode).toBe(403);
  });
});

test('a run that fails midway leaves nothing behind', async () => {
  const booked = await book();
  const second = await book({ RecipientShallPay: true, RecipientCustomerId: 3000 });
  await pickUp(booked, ['2026-11-30T09:45:00']);
  await pickUp(second, ['2026-11-30T09:45:00']);
  const before = await ctx.database.db.select().from(invoices);
  const [counterBefore] = await ctx.database.db.select().from(invoiceNumbers);
  const failing = invoicingWith({
    // The second shipment's facts fail, after the first invoice lines are written.
    catalog: {
      ...ctx.services.catalog,
      rules: async () => {
        const rules = await ctx.services.catalog.rules();
        let calls = 0;
        return {
          ...rules,
          product: (code: string) => {
            if (++calls > 1) throw new Error('injected failure');
            return rules.product(code);
          },
        };
      },
    },
  });
  await expect(failing.run({ ToDate: '2026-11-30' })).rejects.toThrow('injected failure');
  expect(await ctx.database.db.select().from(invoices)).toEqual(before);
  const [counterAfter] = await ctx.database.db.select().from(invoiceNumbers);
  expect(counterAfter).toEqual(counterBefore);
  const pending = await ctx.database.db
    .select()
    .from(invoiceShipments)
    .where(sql`shipment_id = ${booked.ShipmentId}`);
  expect(pending).toEqual([]);
});

test('a run that waited for the number lock across midnight is dated the day it numbers its invoices', async () => {
  // Its day read as 30 November, then (in `first`, before the lock) it is 1 December: a run that
  // began after midnight could have numbered before it, so 30 November would follow 1 December.
  const booked = await book();
  await pickUp(booked, ['2026-11-30T09:55:00']);
  const before = (await ctx.database.db.select().from(invoices)).length;
  now = new Date('2026-11-30T22:59:59Z');
  // As the schedule runs it: `first` claims the tick in the run's transaction. The attempt given up
  // must roll its claim back, or the attempt that follows would find its own tick taken.
  const tick = new Date('2026-11-30T22:59:00Z');
  let claims = 0;
  const result = await ctx.services.invoicing.run({ ToDate: '2026-11-30' }, async (tx) => {
    claims++;
    await claimTick(tx, 'invoicing-midnight-test', tick, 'test');
    now = new Date('2026-11-30T23:00:01Z');
  });
  expect(claims).toBe(2);
  expect(result.Invoices.length).toBeGreaterThan(0);
  const all = await ctx.database.db.select().from(invoices);
  expect(all.length).toBe(before + result.Invoices.length);
  for (const { InvoiceNr } of result.Invoices) {
    expect(all.find((i) => i.invoiceNr === InvoiceNr)?.invoiceDate).toBe('2026-12-01');
  }
});

test('the scheduled run invoices up to yesterday (Oslo) on its cron schedule', async () => {
  const booked = await book();
  await pickUp(booked, ['2026-11-30T09:50:00']);
  now = new Date('2026-12-01T09:00:00Z');
  const runsBefore = (await ctx.database.db.select().from(invoiceRuns)).length;
  const logged: unknown[] = [];
  const log = { info: (o: unknown) => logged.push(o), error: (o: unknown) => logged.push(o) };
  // Every second (croner's six-field form), so the test need not wait for a real schedule.
  const job = scheduleInvoicing(ctx.services.invoicing, '* * * * * *', log as never, () => now);
  await expect
    .poll(async () => (await ctx.database.db.select().from(invoiceRuns)).length, { timeout: 5000 })
    .toBeGreaterThan(runsBefore);
  job.stop();
  const runs = await ctx.database.db.select().from(invoiceRuns);
  expect(runs.at(-1)?.toDate).toBe('2026-11-30');
  const lines = await ctx.database.db
    .select()
    .from(invoiceShipments)
    .where(sql`shipment_id = ${booked.ShipmentId}`);
  expect(lines.length).toBe(1);
});

test('credit notes negate each line’s VAT as invoiced: shipment by shipment, nothing more is credited than charged', async () => {
  // Two equal shipments whose VAT alone ends in half an øre (net ≡ 2 mod 4 øre at 25 %): together the
  // invoice shares out one øre fewer than each would round to on its own.
  // A payer of their own (5000), so the invoice holds these two alone.
  const key = await ctx.keyFor({ customerNrs: ['1000', '5000'], scopes: ['booking'] });
  const payer = { RecipientShallPay: true, RecipientCustomerId: 5000 };
  const bookOf = (weight: number) => book({ ...payer, Parcels: [{ Weight: weight }] }, key);
  let weight = 1;
  let first = await bookOf(weight);
  while ((await frozenTotal(first.ShipmentId)) % 4 !== 2) {
    weight += 1;
    expect(weight, 'no weight gives a net ≡ 2 mod 4 øre').toBeLessThan(60);
    first = await bookOf(weight);
  }
  const second = await bookOf(weight);
  await pickUp(first, ['2026-12-01T09:30:00']);
  await pickUp(second, ['2026-12-01T09:31:00']);
  now = new Date('2026-12-02T09:00:00Z');
  const invoice = json<RunBody>(await run('2026-12-01')).Invoices.find((i) => i.CustomerNr === '5000');
  const vatOf = async (invoiceNr: number | undefined, shipmentId: string) => {
    const [line] = await ctx.database.db
      .select()
      .from(invoiceShipments)
      .where(sql`invoice_nr = ${invoiceNr} and shipment_id = ${shipmentId}`);
    return (line?.lines ?? []).map((l) => l.VatOre);
  };
  for (const shipment of [first, second]) {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/invoicing/credit-notes',
      headers: bearer(ADMIN_KEY),
      payload: { InvoiceNr: invoice?.InvoiceNr, ShipmentIds: [shipment.ShipmentId] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const note = json<{ InvoiceNr: number }>(res).InvoiceNr;
    const charged = await vatOf(invoice?.InvoiceNr, shipment.ShipmentId);
    expect(await vatOf(note, shipment.ShipmentId)).toEqual(charged.map((v) => 0 - v));
  }
  const [charged, credited] = await Promise.all([
    ctx.database.db.select().from(invoices).where(sql`invoice_nr = ${invoice?.InvoiceNr}`),
    ctx.database.db.select().from(invoices).where(sql`credits_invoice_nr = ${invoice?.InvoiceNr}`),
  ]);
  expect(credited.reduce((t, i) => t + i.totalOre, 0)).toBe(-(charged[0]?.totalOre ?? 0));
});

test('freight to Svalbard is exempt from VAT: Norwegian postal codes, outside the VAT area', async () => {
  now = new Date('2026-12-03T10:00:00Z');
  const toLongyearbyen = await book({
    RecipientZip: '9170',
    RecipientPlace: 'LONGYEARBYEN',
    Parcels: [{ Weight: 5 }],
  });
  const toTromso = await book({ RecipientZip: '9008', RecipientPlace: 'TROMSØ', Parcels: [{ Weight: 5 }] });
  await pickUp(toLongyearbyen, ['2026-12-03T10:30:00']);
  await pickUp(toTromso, ['2026-12-03T10:31:00']);
  now = new Date('2026-12-04T09:00:00Z');
  expect((await run('2026-12-03')).statusCode).toBe(201);
  const vatOf = async (id: string) => {
    const [line] = await ctx.database.db.select().from(invoiceShipments).where(sql`shipment_id = ${id}`);
    return (line?.lines ?? []).map((l) => [l.VatPercent, l.VatOre > 0]);
  };
  expect(new Set((await vatOf(toLongyearbyen.ShipmentId)).map(String))).toEqual(new Set(['0,false']));
  expect(new Set((await vatOf(toTromso.ShipmentId)).map(String))).toEqual(new Set(['25,true']));
});

test('the reports show the actual delivery date once the shipment is delivered after its invoice', async () => {
  now = new Date('2026-12-07T08:00:00Z'); // Monday
  const booked = await book({ Parcels: [{ Weight: 3 }] });
  await pickUp(booked, ['2026-12-07T08:30:00']);
  now = new Date('2026-12-08T07:00:00Z');
  expect((await run('2026-12-07')).statusCode).toBe(201);
  const query = 'Customernr=1000&Payer=S&FromPickupDate=2026-12-07&ToPickupDate=2026-12-07';
  const dateIn = async (url: string) =>
    json<{ ShipmentNr?: string; Waybillnr?: string; DeliveryDate: string | null }[]>(await get(url)).find(
      (r) => (r.ShipmentNr ?? r.Waybillnr) === booked.ShipmentId,
    )?.DeliveryDate;
  // Planned for the next working day, delivered a day later.
  expect(await dateIn(`/v2/Invoice/GetInvoiceReport?${query}`)).toBe('2026-12-08T00:00:00');
  now = new Date('2026-12-09T08:00:00Z');
  await scan(booked, 'Delivered', ['2026-12-09T08:30:00']);
  for (const url of [
    `/v2/Invoice/GetInvoiceReport?${query}`,
    `/v1/InvoiceGetInvoiceReport?${query}`,
    `/v3/Invoice/GetInvoiceReport?${query}`,
  ]) {
    expect(await dateIn(url), url).toBe('2026-12-09T00:00:00');
  }
});

test('a Customernr with leading zeros is the same customer, as the spec types it an integer', async () => {
  const invoiceNr = first.Invoices[0]?.InvoiceNr;
  const plain = await get(`/v1/Invoice/GetInvoiceDetails?Customernr=1000&Invoicenr=${invoiceNr}`);
  const padded = await get(`/v1/Invoice/GetInvoiceDetails?Customernr=01000&Invoicenr=${invoiceNr}`);
  expect(padded.statusCode, padded.body).toBe(200);
  expect(json<unknown[]>(plain).length).toBeGreaterThan(0);
  expect(padded.body).toBe(plain.body);
  const query = 'Payer=S&FromPickupDate=2026-11-01&ToPickupDate=2026-11-30';
  expect((await get(`/v2/Invoice/GetInvoiceReport?Customernr=001000&${query}`)).body).toBe(
    (await get(`/v2/Invoice/GetInvoiceReport?Customernr=1000&${query}`)).body,
  );
});

test('a refused report query lists every broken rule at once, the schema’s and the report’s', async () => {
  const errorsOf = async (url: string) => {
    const res = await get(url);
    expect(res.statusCode, res.body).toBe(400);
    return Object.keys(json<{ errors: Record<string, string[]> }>(res).errors).sort();
  };
  for (const path of [
    '/v2/Invoice/GetInvoiceReport',
    '/v1/InvoiceGetInvoiceReport',
    '/v3/Invoice/GetInvoiceReport',
  ]) {
    // ToPickupDate is missing (the schema's), Customernr and Payer break the report's rules.
    expect(await errorsOf(`${path}?Customernr=abc&Payer=Z&FromPickupDate=2026-11-01`), path).toEqual([
      'Customernr',
      'Payer',
      'ToPickupDate',
    ]);
  }
  expect(await errorsOf('/v1/Invoice/GetInvoiceDetails?Customernr=abc')).toEqual(['Customernr', 'Invoicenr']);
});

test('a report is read a page at a time in its order, and answers 304 to the ETag of its whole body', async () => {
  const url =
    '/v2/Invoice/GetInvoiceReport?Customernr=1000&Payer=S&FromPickupDate=2026-11-01&ToPickupDate=2026-12-31';
  const res = await get(url);
  expect(res.statusCode).toBe(200);
  const whole = json<{ ShipmentNr: string; InvoiceNr: number }[]>(res).map(
    (r) => `${r.ShipmentNr}/${r.InvoiceNr}`,
  );
  // Credit notes carry a shipment again under another number: the page boundary must not lose it.
  expect(new Set(whole.map((k) => k.split('/')[0])).size).toBeLessThan(whole.length);
  const query = { customerNr: '1000', role: 'S', from: '2026-11-01', to: '2026-12-31' };
  const paged: string[][] = [];
  for await (const page of reportPages({ db: ctx.database.db, booking: ctx.services.booking }, query, 1)) {
    paged.push(page.map(({ line, invoice }) => `${line.shipmentId}/${invoice.invoiceNr}`));
  }
  expect(paged.flat()).toEqual(whole);
  expect(paged.slice(0, -1).every((p) => p.length === 1)).toBe(true);

  expect(res.headers.etag).toBe(contentTag(res.body));
  const again = await ctx.app.inject({
    url,
    headers: { ...bearer(senderKey), 'if-none-match': String(res.headers.etag) },
  });
  expect(again.statusCode).toBe(304);
  expect(again.body).toBe('');
});

test('the invoice list names each invoice and credit note a customer pays, with its total and shipments', async () => {
  const listed = await get(
    '/v1/Invoice/list?Customernr=1000&FromInvoiceDate=2026-01-01&ToInvoiceDate=2026-12-31',
  );
  expect(listed.statusCode, listed.body).toBe(200);
  type Summary = {
    InvoiceNr: number;
    InvoiceDate: string;
    DueDate: string;
    Kid: string;
    IsCreditNote: boolean;
    Shipments: number;
    TotalKr: string;
  };
  const invoicesOf1000 = json<Summary[]>(listed);
  const stored = await ctx.database.db.select().from(invoices).where(sql`customer_nr = '1000'`);
  expect(invoicesOf1000.map((i) => i.InvoiceNr)).toEqual(
    stored.map((i) => i.invoiceNr).sort((a, b) => a - b),
  );
  for (const summary of invoicesOf1000) {
    const row = stored.find((s) => s.invoiceNr === summary.InvoiceNr);
    expect(summary.Kid).toBe(row?.kid);
    // Written as every answer writes a date (CONTRACT §2), not as stored.
    expect([summary.InvoiceDate, summary.DueDate]).toEqual([
      `${row?.invoiceDate}T00:00:00`,
      `${row?.dueDate}T00:00:00`,
    ]);
    expect(summary.IsCreditNote).toBe(row?.isCredit);
    expect(Math.round(Number(summary.TotalKr) * 100)).toBe(row?.totalOre);
    const lines = await ctx.database.db
      .select()
      .from(invoiceShipments)
      .where(sql`invoice_nr = ${summary.InvoiceNr}`);
    expect(summary.Shipments).toBe(lines.length);
  }
  expect(invoicesOf1000.some((i) => i.IsCreditNote)).toBe(true);
  // Another customer's list is refused; a reversed interval is a 400 naming its field.
  expect(
    (
      await get(
        '/v1/Invoice/list?Customernr=1000&FromInvoiceDate=2026-01-01&ToInvoiceDate=2026-12-31',
        recipientKey,
      )
    ).statusCode,
  ).toBe(403);
  const reversed = await get(
    '/v1/Invoice/list?Customernr=1000&FromInvoiceDate=2026-12-01&ToInvoiceDate=2026-11-01',
  );
  expect(reversed.statusCode).toBe(400);
  expect(Object.keys(json<{ errors: object }>(reversed).errors)).toEqual(['ToInvoiceDate']);
});

test('a payer of more shipments than a pass is read a pass at a time: lines in order, the VAT shared out over the whole invoice', async () => {
  now = new Date('2026-12-14T07:00:00Z');
  // Seven shipments paid by 4000, picked up over three days out of booking order; one to Svalbard (exempt).
  const booked: Booked[] = [];
  for (let i = 0; i < 7; i++) {
    const svalbard = i === 3 ? { RecipientZip: '9170', RecipientPlace: 'LONGYEARBYEN' } : {};
    booked.push(await book({ PayerCustomerId: 4000, Parcels: [{ Weight: 5 + (i % 3) }], ...svalbard }));
  }
  now = new Date('2026-12-16T12:00:00Z');
  const days = ['16', '14', '15', '14', '16', '15', '14'];
  for (const [i, b] of booked.entries()) await pickUp(b, [`2026-12-${days[i]}T10:0${i}:00`]);
  now = new Date('2026-12-17T09:00:00Z');
  const inPasses = invoicingWith({ shipmentsPerPass: 2 });
  const result = await inPasses.run({ ToDate: '2026-12-16' });
  const invoiceNr = result.Invoices.find((i) => i.CustomerNr === '4000')?.InvoiceNr ?? 0;
  const lines = await ctx.database.db
    .select()
    .from(invoiceShipments)
    .where(sql`invoice_nr = ${invoiceNr}`)
    .orderBy(invoiceShipments.lineNr);
  // In the invoice's order across passes: pickup date, then shipment.
  const order = booked
    .map((b, i) => ({ id: b.ShipmentId, day: days[i] ?? '' }))
    .sort((a, b) => a.day.localeCompare(b.day) || a.id.localeCompare(b.id));
  expect(lines.map((l) => l.shipmentId)).toEqual(order.map((o) => o.id));
  expect(lines.map((l) => l.lineNr)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  // The VAT as if every line had been shared out at once; shared out per pass it would differ here.
  const untaxed = lines.map((l) => l.lines.map(({ VatOre: _, ...c }) => c));
  const whole = allocateVat(untaxed).map((ls) => ls.map((c) => c.VatOre));
  const perPass = [0, 2, 4, 6]
    .flatMap((i) => allocateVat(untaxed.slice(i, i + 2)))
    .map((ls) => ls.map((c) => c.VatOre));
  expect(perPass).not.toEqual(whole);
  expect(lines.map((l) => l.lines.map((c) => c.VatOre))).toEqual(whole);
  expect(
    new Set(lines[order.findIndex((o) => o.id === booked[3]?.ShipmentId)]?.lines.map((c) => c.VatPercent)),
  ).toEqual(new Set([0]));
  const [head] = await ctx.database.db.select().from(invoices).where(sql`invoice_nr = ${invoiceNr}`);
  expect(head?.totalOre).toBe(lines.reduce((t, l) => t + l.totalOre, 0));
  const [event] = await ctx.database.db
    .select()
    .from(outboxEvents)
    .where(sql`type = 'invoice.issued' and invoice_nr = ${invoiceNr}`);
  expect(event?.data).toMatchObject({ ShipmentIds: order.map((o) => o.id), ShipmentCount: 7 });

  // Credit notes read the invoice's lines a pass at a time too: two named shipments on different
  // passes, then the rest, each in the invoice's order and each line the invoice's negated.
  const named = [order[5]?.id ?? '', order[0]?.id ?? ''];
  const partial = await inPasses.creditNote({ InvoiceNr: invoiceNr, ShipmentIds: named });
  const rest = await inPasses.creditNote({ InvoiceNr: invoiceNr });
  const linesOf = (nr: number) =>
    ctx.database.db
      .select()
      .from(invoiceShipments)
      .where(sql`invoice_nr = ${nr}`)
      .orderBy(invoiceShipments.lineNr);
  const negated = (ls: typeof lines) =>
    ls.map((l) => [l.shipmentId, 0 - l.totalOre, l.lines.map((c) => [0 - c.AmountOre, 0 - c.VatOre])]);
  const asNoted = (ls: typeof lines) =>
    ls.map((l) => [l.shipmentId, l.totalOre, l.lines.map((c) => [c.AmountOre, c.VatOre])]);
  expect(asNoted(await linesOf(partial.InvoiceNr))).toEqual(
    negated([lines[0], lines[5]].flatMap((l) => (l ? [l] : []))),
  );
  expect(asNoted(await linesOf(rest.InvoiceNr))).toEqual(negated(lines.filter((_, i) => i !== 0 && i !== 5)));
  expect(Math.round((partial.Total + rest.Total) * 100)).toBe(-(head?.totalOre ?? 0));
  for (const note of [partial, rest]) {
    const noted = await linesOf(note.InvoiceNr);
    const [noteHead] = await ctx.database.db
      .select()
      .from(invoices)
      .where(sql`invoice_nr = ${note.InvoiceNr}`);
    expect(noteHead?.totalOre).toBe(noted.reduce((t, l) => t + l.totalOre, 0));
    const [issued] = await ctx.database.db
      .select()
      .from(outboxEvents)
      .where(sql`type = 'invoice.issued' and invoice_nr = ${note.InvoiceNr}`);
    expect(issued?.data).toMatchObject({ ShipmentIds: noted.map((l) => l.shipmentId), IsCreditNote: true });
  }
  await expect(inPasses.creditNote({ InvoiceNr: invoiceNr })).rejects.toThrow('validation errors');
});

test('a payer whose shipments read differently in the second pass is not invoiced: the run fails whole', async () => {
  now = new Date('2026-12-21T07:00:00Z');
  const booked = [await book({ PayerCustomerId: 4000 }), await book({ PayerCustomerId: 4000 })];
  now = new Date('2026-12-21T12:00:00Z');
  for (const b of booked) await pickUp(b, ['2026-12-21T10:00:00']);
  now = new Date('2026-12-22T09:00:00Z');
  expect(() => invoicingWith({ shipmentsPerPass: 0 })).toThrow('not a count');
  // The third read (the second pass's first) answers another price than the first did.
  let reads = 0;
  const drifting = invoicingWith({
    shipmentsPerPass: 1,
    booking: {
      ...ctx.services.booking,
      invoiceableOf: async (...args: Parameters<typeof ctx.services.booking.invoiceableOf>) => {
        const rows = await ctx.services.booking.invoiceableOf(...args);
        if (++reads !== 3) return rows;
        return rows.map((r) => ({
          ...r,
          price: { ...r.price, Lines: r.price.Lines.map((l) => ({ ...l, AmountOre: l.AmountOre + 1 })) },
        }));
      },
    },
  });
  const before = await ctx.database.db.select().from(invoices);
  await expect(drifting.run({ ToDate: '2026-12-21' })).rejects.toThrow('changed between its two readings');
  expect(await ctx.database.db.select().from(invoices)).toEqual(before);
  const pending = await ctx.database.db
    .select()
    .from(invoiceShipments)
    .where(sql`shipment_id in (${booked[0]?.ShipmentId}, ${booked[1]?.ShipmentId})`);
  expect(pending).toEqual([]);
});

import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { sql } from 'drizzle-orm';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import PDFDocument from 'pdfkit';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osloBergenBooking, toGothenburg } from '../../test/factories';
import {
  ADMIN_KEY,
  bearer,
  buildTestApp,
  invoiceUpTo,
  json,
  pickUp,
  type TestContext,
} from '../../test/helpers';
import { turnsWhileRendering } from '../../test/turns';
import { createServices } from '../app';
import type { Account } from '../auth/access';
import { loadConfig } from '../config';
import { registerFonts } from '../lib/pdf-fonts';
import { mulDivHalfUp } from '../lib/units';
import { decimalText, nokText } from './format';
import { forgetWordLayouts, renderInvoicePdf } from './pdf';
import { invoiceShipments, invoices } from './tables';

/**
 * The invoice PDF as a legal Norwegian invoice (bokføringsforskriften § 5-1-1): every mandatory
 * element is in its text, and its totals equal the reports' figures to the øre — for a domestic-only
 * invoice and for one mixing domestic and international (VAT-exempt) shipments over several pages.
 */

let now = new Date('2026-11-23T09:00:00Z');
let ctx: TestContext;
let key: string;
let scanSeq = 0;

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => now });
  await ctx.services.customers.create({
    CustomerNr: '1000',
    Name: 'Nordlys Handel AS',
    OrgNr: '987654325',
    Address: { Address: 'Storgata 12', Address2: 'Bakgården', Zip: '0155', Place: 'OSLO', Country: 'NO' },
  });
  key = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['booking', 'invoice'] });
});
afterAll(() => ctx.close());

const get = (url: string) => ctx.app.inject({ method: 'GET', url, headers: bearer(key) });

async function bookAndPickUp(over: Record<string, unknown>, time: string): Promise<string> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: bearer(key),
    payload: osloBergenBooking({
      SenderReference: 'PO-4711',
      Parcels: [{ Weight: 12.5 }, { Weight: 4 }],
      ...over,
    }),
  });
  expect(res.statusCode, res.body).toBe(201);
  const booked = json<{ ShipmentId: string; ParcelIds: string[] }>(res);
  await pickUp(ctx, booked.ParcelIds, time, `pdf-${++scanSeq}`);
  return booked.ShipmentId;
}

async function runTo(toDate: string): Promise<number> {
  const res = await invoiceUpTo(ctx, toDate);
  const [invoice] = json<{ Invoices: { InvoiceNr: number }[] }>(res).Invoices;
  if (!invoice) throw new Error('no invoice issued');
  return invoice.InvoiceNr;
}

/** The PDF's text, page by page (pdf.js text items in content order, joined by spaces). */
async function pdfPages(invoiceNr: number): Promise<string[]> {
  const res = await get(`/v1/Invoice/${invoiceNr}/pdf`);
  expect(res.statusCode, res.body).toBe(200);
  const doc = await getDocument({ data: new Uint8Array(res.rawPayload), verbosity: 0 }).promise;
  const pages: string[] = [];
  for (let i = 1; i <= doc.numPages; i++) {
    const items = (await (await doc.getPage(i)).getTextContent()).items;
    pages.push(
      items
        .map((item) => ('str' in item ? item.str : ''))
        .join(' ')
        .replace(/\s+/g, ' '),
    );
  }
  return pages;
}

const ore = (kr: number | string) => Math.round(Number(kr) * 100);

interface V2Record {
  ShipmentNr: string;
  InvoiceNr: number;
  TotalFreightPrice: number;
  VatPercent: number;
  VatKr: number;
  TotalFreightPriceInclVat: number;
  Details: { AmountKr: number; VatPercent: number; VatKr: number }[];
}
interface V1Record {
  Waybillnr: string;
  InvoiceNumber: string;
  NetShipping: string;
  VatPercent: string;
  VatKr: string;
  NetShippingInclVat: string;
}

/** The report figures of one invoice, in øre, by VAT rate; checked to agree across the three reads. */
async function reportFigures(invoiceNr: number, from: string, to: string) {
  const v2 = json<V2Record[]>(
    await get(
      `/v2/Invoice/GetInvoiceReport?Customernr=1000&Payer=S&FromPickupDate=${from}&ToPickupDate=${to}`,
    ),
  ).filter((r) => r.InvoiceNr === invoiceNr);
  const v1 = json<V1Record[]>(
    await get(
      `/v1/InvoiceGetInvoiceReport?Customernr=1000&Payer=S&FromPickupDate=${from}&ToPickupDate=${to}`,
    ),
  ).filter((r) => r.InvoiceNumber === String(invoiceNr));
  const rows = json<{ AmountKr: number; VatPercent: number; VatKr: number }[]>(
    await get(`/v1/Invoice/GetInvoiceDetails?Customernr=1000&Invoicenr=${invoiceNr}`),
  );
  expect(v2.length).toBeGreaterThan(0);
  expect(v1.map((r) => r.Waybillnr).sort()).toEqual(v2.map((r) => r.ShipmentNr).sort());
  const byRate = new Map<number, { basis: number; vat: number }>();
  for (const r of v2) {
    // Each record: its lines add up to it, and the v1 record says the same.
    expect(r.Details.reduce((t, d) => t + ore(d.VatKr), 0)).toBe(ore(r.VatKr));
    expect(r.Details.every((d) => d.VatPercent === r.VatPercent)).toBe(true);
    expect(ore(r.TotalFreightPrice) + ore(r.VatKr)).toBe(ore(r.TotalFreightPriceInclVat));
    const twin = v1.find((x) => x.Waybillnr === r.ShipmentNr);
    expect([ore(twin?.NetShipping ?? 0), ore(twin?.VatKr ?? 0), Number(twin?.VatPercent)]).toEqual([
      ore(r.TotalFreightPrice),
      ore(r.VatKr),
      r.VatPercent,
    ]);
    expect(ore(twin?.NetShippingInclVat ?? 0)).toBe(ore(r.TotalFreightPriceInclVat));
    const g = byRate.get(r.VatPercent) ?? { basis: 0, vat: 0 };
    g.basis += ore(r.TotalFreightPrice);
    g.vat += ore(r.VatKr);
    byRate.set(r.VatPercent, g);
  }
  const excl = v2.reduce((t, r) => t + ore(r.TotalFreightPrice), 0);
  const vat = v2.reduce((t, r) => t + ore(r.VatKr), 0);
  // The invoice details read: one row per cost line, the same sums.
  expect(rows.reduce((t, r) => t + ore(r.AmountKr), 0)).toBe(excl);
  expect(rows.reduce((t, r) => t + ore(r.VatKr), 0)).toBe(vat);
  return { v2, excl, vat, byRate };
}

/** What every invoice must show (§ 5-1-1), with the seller from configuration and the buyer frozen. */
function expectMandatory(
  text: string,
  invoiceNr: number,
  kid: string,
  dates: { invoice: string; due: string },
) {
  expect(text).toContain('FAKTURA');
  // Seller: the configured (sandbox) name, address and organisation number followed by MVA.
  expect(text).toContain('Kolli Sandbox AS');
  expect(text).toContain('Eksempelveien 1');
  expect(text).toContain('0150 OSLO');
  expect(text).toContain('Org.nr. 921 000 006 MVA');
  // Buyer: name, address and organisation number from the customer register.
  expect(text).toContain('Nordlys Handel AS');
  expect(text).toContain('Storgata 12');
  expect(text).toContain('Bakgården');
  expect(text).toContain('0155 OSLO');
  expect(text).toContain('Org.nr. 987 654 325');
  // Number, dates (Norwegian form), payment.
  expect(text).toContain(`Fakturanr. / Invoice no. ${invoiceNr}`);
  expect(text).toContain(`Fakturadato / Invoice date ${dates.invoice}`);
  expect(text).toMatch(/Leveringsperiode \/ Delivery period \d{2}\.\d{2}\.2026(–\d{2}\.\d{2}\.2026)?/);
  expect(text).toContain(`Forfallsdato / Due date ${dates.due}`);
  expect(text).toContain(`KID ${kid}`);
  expect(text).toContain('Kontonr. / Bank account 1234.56.78903');
  expect(text).not.toMatch(/\d\.\d{2}(?!\.)\b/); // no English decimals: `1234.50`
}

describe('a domestic-only invoice', () => {
  let invoiceNr: number;
  let shipments: string[];
  beforeAll(async () => {
    shipments = [
      await bookAndPickUp({}, '2026-11-23T09:30:00'),
      await bookAndPickUp(
        { Parcels: [{ Weight: 410.2 }, { Weight: 410.2 }, { Weight: 410.2 }] },
        '2026-11-23T09:40:00',
      ),
    ];
    now = new Date('2026-11-23T12:00:00Z');
    invoiceNr = await runTo('2026-11-23');
  });

  test('every mandatory element, each shipment with its lines, and totals equal to the reports to the øre', async () => {
    const pages = await pdfPages(invoiceNr);
    const text = pages.join(' ');
    const { v2, excl, vat, byRate } = await reportFigures(invoiceNr, '2026-11-23', '2026-11-23');
    const details = json<{ Kid: string }[]>(
      await get(`/v1/Invoice/GetInvoiceDetails?Customernr=1000&Invoicenr=${invoiceNr}`),
    );
    expectMandatory(text, invoiceNr, details[0]?.Kid ?? '', { invoice: '23.11.2026', due: '07.12.2026' });
    for (const id of shipments) expect(text).toContain(`Sending ${id}`);
    expect(text).toContain('Avtalt frakt');
    // The delivery date the document keeps is the delivery's or the plan's: named as neither.
    expect(text).toMatch(/, levering \d{2}\.\d{2}\.2026/);
    expect(text).not.toMatch(/, levert |planlagt/);
    expect(text).toContain(decimalText(1230.6, 1)); // `1 230,6` kg
    for (const r of v2) expect(text).toContain(nokText(ore(r.TotalFreightPrice)));
    // Only the 25 % rate: VAT is a quarter of the basis, rounded half-up once.
    expect([...byRate.keys()]).toEqual([25]);
    expect(vat).toBe(mulDivHalfUp(excl, 25, 100));
    expect(text).toContain(`Sum eks. mva / Total excl. VAT ${nokText(excl)}`);
    expect(text).toContain(`Grunnlag 25 % mva / Basis 25 % VAT ${nokText(excl)}`);
    expect(text).toContain(`Mva 25 % / VAT 25 % ${nokText(vat)}`);
    expect(text).toContain(`Sum mva / Total VAT ${nokText(vat)}`);
    expect(text).toContain(`Å betale inkl. mva / Total incl. VAT (NOK) ${nokText(excl + vat)}`);
    expect(text).not.toContain('fritatt');
    expect(pages.at(-1)).toContain(`Side ${pages.length} av ${pages.length}`);
  });

  /** The invoice's document with its first line repeated `times` times, in pages of 200. */
  async function longDocument(times: number) {
    const account = {
      keyId: 'k',
      name: 'admin',
      customerNrs: new Set<string>(),
      scopes: new Set(['admin'] as const),
    };
    const document = await ctx.services.invoicing.document(account, invoiceNr);
    const [line] = (await document.lines()[Symbol.asyncIterator]().next()).value ?? [];
    if (!line) throw new Error('the invoice has lines');
    return {
      ...document,
      lines: async function* () {
        for (let i = 0; i < times; i += 200)
          yield Array.from({ length: Math.min(200, times - i) }, () => line);
      },
    };
  }

  /** A document whose pages of lines, as read, are counted in `read.pages`. */
  function counting(document: Awaited<ReturnType<typeof longDocument>>) {
    const read = { pages: 0 };
    const lines = async function* () {
      for await (const page of document.lines()) {
        read.pages++;
        yield page;
      }
    };
    return { read, document: { ...document, lines } };
  }

  test('an issued invoice keeps the seller it was issued by, whatever the configuration says later', async () => {
    // Once read from the configuration when drawn: a changed bank account changed issued invoices.
    const later = loadConfig({
      ...process.env,
      LOG_LEVEL: 'silent',
      KOLLI_SELLER_NAME: 'Ny Frakt AS',
      KOLLI_SELLER_BANK_ACCOUNT: '1503.12.34562',
    });
    const services = createServices(ctx.database, later);
    const account: Account = {
      keyId: 'test',
      name: 'test',
      scopes: new Set(['invoice']),
      customerNrs: new Set(['1000']),
    };
    const document = await services.invoicing.document(account, invoiceNr);
    expect(document.seller).toEqual(ctx.config.seller);
    expect(document.seller.name).toBe('Kolli Sandbox AS');
  });

  test('a long invoice is sent as it is drawn: drawing waits for a client that does not read', async () => {
    const { read, document } = counting(await longDocument(3000));
    const out = new PassThrough({ highWaterMark: 16 * 1024 });
    const rendering = renderInvoicePdf(document, out, 64 * 1024);
    // Drawn whole, 3 000 shipments take well under this; nothing is read meanwhile. The lines are
    // read twice (15 pages each): the drawing stops early in the second read.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(read.pages).toBeGreaterThanOrEqual(15);
    expect(read.pages).toBeLessThan(25);
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    await rendering;
    expect(read.pages).toBe(30);
    const pdf = await getDocument({ data: new Uint8Array(Buffer.concat(chunks)), verbosity: 0 }).promise;
    const last = (await (await pdf.getPage(pdf.numPages)).getTextContent()).items
      .map((item) => ('str' in item ? item.str : ''))
      .join(' ');
    expect(pdf.numPages).toBeGreaterThan(100);
    expect(last).toContain(`Side ${pdf.numPages} av ${pdf.numPages}`);
  });

  test('a client that goes away ends the drawing: the rest of the lines are not read', async () => {
    const { read, document } = counting(await longDocument(3000));
    const out = new PassThrough({ highWaterMark: 16 * 1024 });
    const rendering = renderInvoicePdf(document, out, 64 * 1024);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    out.destroy();
    await expect(rendering).resolves.toBeUndefined();
    expect(read.pages).toBeLessThan(25);
  });

  test("pdfkit's word layouts are where forgetWordLayouts empties them", () => {
    const pdf = new PDFDocument({ autoFirstPage: true });
    registerFonts(pdf);
    pdf.font('regular').text('Sending 70900010000000010');
    const fonts = Object.values(
      (pdf as unknown as { _fontFamilies: Record<string, { layoutCache?: object }> })._fontFamilies,
    );
    expect(fonts.some((f) => f.layoutCache && Object.keys(f.layoutCache).length > 0)).toBe(true);
    forgetWordLayouts(pdf);
    for (const f of fonts) expect(Object.keys(f.layoutCache ?? {})).toEqual([]);
    pdf.end();
  });

  test('a long invoice lets other work run while it is drawn', async () => {
    const document = await longDocument(400);
    const turns = await turnsWhileRendering((out) => renderInvoicePdf(document, out));
    // Drawn in one go the ticker got no turn until the end; now it gets one every 20 shipments.
    expect(turns).toBeGreaterThanOrEqual(400 / 20);
  });
});

describe('a mixed domestic and international invoice over several pages', () => {
  let invoiceNr: number;
  const domestic: string[] = [];
  const abroad: string[] = [];
  beforeAll(async () => {
    now = new Date('2026-11-24T10:00:00Z');
    for (let i = 0; i < 12; i++) domestic.push(await bookAndPickUp({}, '2026-11-24T09:30:00'));
    abroad.push(await bookAndPickUp(toGothenburg(), '2026-11-24T09:45:00'));
    abroad.push(await bookAndPickUp({ ...toGothenburg(), DeliveryType: 0 }, '2026-11-24T09:50:00'));
    now = new Date('2026-11-24T12:00:00Z');
    invoiceNr = await runTo('2026-11-24');
  });

  test('25 % on domestic, international stated exempt (merverdiavgiftsloven § 6-28), totals to the øre', async () => {
    const pages = await pdfPages(invoiceNr);
    expect(pages.length).toBeGreaterThan(1);
    const text = pages.join(' ');
    const { v2, excl, vat, byRate } = await reportFigures(invoiceNr, '2026-11-24', '2026-11-24');
    const kid = json<{ Kid: string }[]>(
      await get(`/v1/Invoice/GetInvoiceDetails?Customernr=1000&Invoicenr=${invoiceNr}`),
    )[0]?.Kid;
    expectMandatory(text, invoiceNr, kid ?? '', { invoice: '24.11.2026', due: '08.12.2026' });
    // Every shipment once, on some page; the international ones at 0 %.
    for (const id of [...domestic, ...abroad]) expect(text.split(`Sending ${id}`).length).toBe(2);
    for (const r of v2) expect(r.VatPercent).toBe(abroad.includes(r.ShipmentNr) ? 0 : 25);
    expect(v2.filter((r) => r.VatPercent === 0).every((r) => r.VatKr === 0)).toBe(true);

    const domesticRate = byRate.get(25);
    const exempt = byRate.get(0);
    expect(domesticRate && exempt).toBeTruthy();
    expect(domesticRate?.vat).toBe(mulDivHalfUp(domesticRate?.basis ?? 0, 25, 100));
    expect(text).toContain(`Sum eks. mva / Total excl. VAT ${nokText(excl)}`);
    expect(text).toContain(`Grunnlag 25 % mva / Basis 25 % VAT ${nokText(domesticRate?.basis ?? -1)}`);
    expect(text).toContain(`Mva 25 % / VAT 25 % ${nokText(domesticRate?.vat ?? -1)}`);
    expect(text).toContain(`Grunnlag fritatt for mva* / VAT exempt ${nokText(exempt?.basis ?? -1)}`);
    expect(text).toContain('Mva 0 % / VAT 0 % 0,00');
    expect(text).toContain(`Sum mva / Total VAT ${nokText(vat)}`);
    expect(text).toContain(`Å betale inkl. mva / Total incl. VAT (NOK) ${nokText(excl + vat)}`);
    expect(text).toContain('Fritatt for merverdiavgift, merverdiavgiftsloven § 6-28');
    expect(text).toContain('SE');
    expect(text).toContain('Utførselsfortolling');
    // The table header and the footer on every page.
    pages.forEach((page, i) => {
      expect(page).toContain('Beløp eks. mva');
      expect(page).toContain(`Side ${i + 1} av ${pages.length}`);
      expect(page).toContain('Org.nr. 921 000 006 MVA');
    });
  });

  test('a credit note has the VAT of what it credits, negative, and says what it credits', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/invoicing/credit-notes',
      headers: bearer(ADMIN_KEY),
      payload: { InvoiceNr: invoiceNr, ShipmentIds: [domestic[0], abroad[0]], Reason: 'Feil vekt' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const creditNr = json<{ InvoiceNr: number }>(res).InvoiceNr;
    const text = (await pdfPages(creditNr)).join(' ');
    const credit = await reportFigures(creditNr, '2026-11-24', '2026-11-24');
    const original = (await reportFigures(invoiceNr, '2026-11-24', '2026-11-24')).v2.filter(
      (r) => r.ShipmentNr === domestic[0] || r.ShipmentNr === abroad[0],
    );
    expect(credit.excl).toBe(-original.reduce((t, r) => t + ore(r.TotalFreightPrice), 0));
    const creditedDomestic = original.filter((r) => r.VatPercent === 25);
    expect(credit.vat).toBe(
      -mulDivHalfUp(
        creditedDomestic.reduce((t, r) => t + ore(r.TotalFreightPrice), 0),
        25,
        100,
      ),
    );
    expect(credit.byRate.get(0)?.vat).toBe(0);
    expect(text).toContain('KREDITNOTA');
    expect(text).toContain(`Krediterer faktura / Credits invoice ${invoiceNr}`);
    expect(text).toContain('Feil vekt');
    expect(text).toContain(`Sum mva / Total VAT ${nokText(credit.vat)}`);
    expect(text).toContain(
      `Til gode inkl. mva / Credit incl. VAT (NOK) ${nokText(credit.excl + credit.vat)}`,
    );
  });
});

test('migration 0012 gives invoices issued before VAT the same figures as the rule, and the buyer', async () => {
  const db = ctx.database.db;
  const before = await db.select().from(invoiceShipments);
  const buyers = await db.select().from(invoices);
  expect(before.some((r) => r.lines[0]?.VatPercent === 0)).toBe(true);
  // Make them look issued before this change.
  await db.execute(sql`update invoice_shipments set facts = facts - 'PickupCountry' - 'DeliveryCountry',
    lines = (select jsonb_agg(l - 'VatPercent' - 'VatOre' order by n)
             from jsonb_array_elements(lines) with ordinality as e(l, n))`);
  await db.execute(sql`update invoices set customer_org_nr = null, customer_address = null`);
  const migration = readFileSync(
    new URL('../db/migrations/0012_invoice_vat_and_buyer.sql', import.meta.url),
    'utf8',
  );
  for (const statement of migration.split('--> statement-breakpoint')) {
    if (/^\s*(--.*\n\s*)*(UPDATE|WITH)/i.test(statement)) await db.execute(sql.raw(statement));
  }
  const after = await db.select().from(invoiceShipments);
  const key = (r: { invoiceNr: number; lineNr: number }) => `${r.invoiceNr}/${r.lineNr}`;
  const sorted = <T extends { invoiceNr: number; lineNr: number }>(rows: T[]) =>
    [...rows].sort((a, b) => key(a).localeCompare(key(b)));
  expect(sorted(after).map((r) => [r.lines, r.facts])).toEqual(sorted(before).map((r) => [r.lines, r.facts]));
  const buyersAfter = await db.select().from(invoices);
  expect(buyersAfter.map((r) => [r.invoiceNr, r.customerOrgNr, r.customerAddress]).sort()).toEqual(
    buyers.map((r) => [r.invoiceNr, r.customerOrgNr, r.customerAddress]).sort(),
  );
});

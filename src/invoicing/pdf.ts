import type { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import PDFDocument from 'pdfkit';
import type { Config } from '../config';
import { formatBankAccount, formatOrgNr } from '../lib/mod11';
import { type FontName, registerFonts } from '../lib/pdf-fonts';
import { gramsToKg } from '../lib/units';
import { COST_CODES } from './cost-codes';
import { decimalText, nokText, norwegianDate } from './format';
import type { InvoiceRow, InvoiceShipmentRow } from './store';
import type { InvoicedAddress } from './tables';
import { EXPORT_EXEMPTION_EN, EXPORT_EXEMPTION_NO, vatByRate, vatSum } from './vat';

/**
 * The invoice or credit note as an A4 PDF with what bokføringsforskriften § 5-1-1 asks of a sales
 * document: the seller (name, organisation number followed by `MVA`, address), the buyer (name,
 * organisation number, address), number, date, delivery period, what was delivered, amounts excluding
 * VAT, VAT per rate (exempt transport stated as such), the total including VAT, due date, bank account
 * and KID. Every figure comes from the frozen invoice lines; nothing is recomputed here.
 */

type Doc = InstanceType<typeof PDFDocument>;
type Align = 'left' | 'right';

const A4: [number, number] = [595.28, 841.89];
const M = 45; // margin
const WIDTH = A4[0] - 2 * M;
const BOTTOM = A4[1] - M - 20; // leave room for the footer
const GREY = '#555';
const BUYER_W = 230;

/** Table columns (x and width in points); the description column holds shipment and cost lines. */
const COL = {
  what: { x: M, w: 232 },
  date: { x: M + 236, w: 58 },
  parcels: { x: M + 296, w: 34 },
  weight: { x: M + 332, w: 52 },
  vat: { x: M + 386, w: 38 },
  amount: { x: M + 426, w: WIDTH - 426 },
} as const;

/** One line of text, cut with an ellipsis rather than wrapped into the next row. */
function cell(doc: Doc, text: string, x: number, y: number, w: number, align: Align = 'left') {
  doc.text(text, x, y, { width: w, align, height: doc.currentLineHeight(true), ellipsis: true });
}

function font(doc: Doc, name: FontName, size: number, color = '#000') {
  return doc.font(name).fontSize(size).fillColor(color);
}

function addressLines(a: InvoicedAddress | null): string[] {
  if (!a) return [];
  const place = [a.Zip, a.Place].filter(Boolean).join(' ');
  return [a.Address, a.Address2, place, a.Country && a.Country !== 'NO' ? a.Country : undefined].filter(
    (l): l is string => Boolean(l),
  );
}

/** From the first pickup to the last delivery (planned, when not delivered yet). */
function deliveryPeriod(lines: InvoiceShipmentRow[]): string {
  const dates = lines.flatMap((l) => [l.pickupDate, l.facts.DeliveryDate ?? l.pickupDate]).sort();
  const first = dates[0];
  const last = dates[dates.length - 1];
  if (!first || !last) return '–';
  return first === last ? norwegianDate(first) : `${norwegianDate(first)}–${norwegianDate(last)}`;
}

/** Shipments drawn between two turns of the event loop (a page holds about twenty). */
const SHIPMENTS_PER_TURN = 20;

const vatLabel = (percent: number) => (percent === 0 ? 'fritatt*' : `${percent} %`);

export async function renderInvoicePdf(
  doc: { invoice: InvoiceRow; lines: InvoiceShipmentRow[]; seller: Config['seller'] },
  out: Writable,
) {
  const { invoice, lines, seller } = doc;
  const pdf = new PDFDocument({
    size: A4,
    margin: M,
    compress: true,
    bufferPages: true,
    info: {
      Title: `${seller.name} ${invoice.isCredit ? 'kreditnota' : 'faktura'} ${invoice.invoiceNr}`,
      Creator: 'Kolli',
    },
  });
  registerFonts(pdf);
  const done = new Promise<void>((resolve, reject) => {
    out.on('finish', resolve);
    out.on('error', reject);
    pdf.on('error', reject);
  });
  pdf.pipe(out);

  // Seller, top left; document kind, top right.
  font(pdf, 'bold', 16).text(seller.name, M, M, { width: 300 });
  let y = pdf.y + 2;
  font(pdf, 'regular', 9, GREY);
  for (const line of [...seller.address, `Org.nr. ${formatOrgNr(seller.orgNr)} MVA`]) {
    pdf.text(line, M, y, { width: 300 });
    y = pdf.y;
  }
  font(pdf, 'bold', 20).text(invoice.isCredit ? 'KREDITNOTA' : 'FAKTURA', M, M - 2, {
    width: WIDTH,
    align: 'right',
  });
  font(pdf, 'regular', 9, GREY).text(invoice.isCredit ? 'Credit note' : 'Invoice', M, M + 22, {
    width: WIDTH,
    align: 'right',
  });

  // Buyer, left; the invoice's facts, right.
  const top = Math.max(y, M + 40) + 22;
  font(pdf, 'regular', 8, GREY).text('Faktureres til / Bill to', M, top, { width: BUYER_W });
  font(pdf, 'bold', 11).text(invoice.customerName, M, top + 12, { width: BUYER_W });
  font(pdf, 'regular', 9.5);
  for (const line of addressLines(invoice.customerAddress)) pdf.text(line, M, pdf.y, { width: BUYER_W });
  if (invoice.customerOrgNr)
    pdf.text(`Org.nr. ${formatOrgNr(invoice.customerOrgNr)}`, M, pdf.y, { width: BUYER_W });
  pdf.text(`Kundenr. / Customer no. ${invoice.customerNr}`, M, pdf.y, { width: BUYER_W });
  const buyerBottom = pdf.y;

  const facts: [string, string][] = [
    [
      invoice.isCredit ? 'Kreditnotanr. / Credit note no.' : 'Fakturanr. / Invoice no.',
      String(invoice.invoiceNr),
    ],
    [invoice.isCredit ? 'Dato / Date' : 'Fakturadato / Invoice date', norwegianDate(invoice.invoiceDate)],
    ['Leveringsperiode / Delivery period', deliveryPeriod(lines)],
  ];
  if (invoice.creditsInvoiceNr !== null)
    facts.push(['Krediterer faktura / Credits invoice', String(invoice.creditsInvoiceNr)]);
  else facts.push(['Forfallsdato / Due date', norwegianDate(invoice.dueDate)]);
  facts.push(['KID', invoice.kid], ['Kontonr. / Bank account', formatBankAccount(seller.bankAccount)]);
  let fy = top;
  for (const [label, value] of facts) {
    font(pdf, 'regular', 8.5, GREY);
    cell(pdf, label, M + 240, fy + 1, 140);
    font(pdf, 'bold', 9.5);
    cell(pdf, value, M + 380, fy, WIDTH - 380, 'right');
    fy += 15;
  }
  y = Math.max(buyerBottom, fy) + 8;
  if (invoice.reason) {
    font(pdf, 'regular', 9).text(`Årsak / Reason: ${invoice.reason}`, M, y, { width: WIDTH });
    y = pdf.y + 6;
  }

  const header = (at: number) => {
    font(pdf, 'bold', 8);
    cell(pdf, 'Sending / levert tjeneste', COL.what.x, at, COL.what.w);
    cell(pdf, 'Hentet', COL.date.x, at, COL.date.w);
    cell(pdf, 'Kolli', COL.parcels.x, at, COL.parcels.w, 'right');
    cell(pdf, 'Vekt kg', COL.weight.x, at, COL.weight.w, 'right');
    cell(pdf, 'Mva', COL.vat.x, at, COL.vat.w, 'right');
    cell(pdf, 'Beløp eks. mva', COL.amount.x, at, COL.amount.w, 'right');
    pdf
      .moveTo(M, at + 12)
      .lineTo(M + WIDTH, at + 12)
      .lineWidth(0.7)
      .strokeColor('#000')
      .stroke();
    return at + 16;
  };
  /** A new page with the table header when `height` does not fit below `y`. */
  const room = (height: number, withHeader = true) => {
    if (y + height <= BOTTOM) return;
    pdf.addPage();
    y = withHeader ? header(M) : M;
  };

  y = header(y + 8);
  const ROW = 12;
  for (const [i, line] of lines.entries()) {
    // An invoice of 50 000 shipments takes a minute to draw: let other requests run meanwhile.
    if (i % SHIPMENTS_PER_TURN === SHIPMENTS_PER_TURN - 1) await nextTurn();
    const f = line.facts;
    // Keep a shipment with its cost lines when they fit on one page.
    room(ROW * (2 + line.lines.length) + 4);
    font(pdf, 'bold', 8.5);
    cell(pdf, `Sending ${line.shipmentId}`, COL.what.x, y, COL.what.w);
    font(pdf, 'regular', 8.5);
    cell(pdf, norwegianDate(line.pickupDate), COL.date.x, y, COL.date.w);
    cell(pdf, String(f.NumberOfParcels), COL.parcels.x, y, COL.parcels.w, 'right');
    cell(pdf, decimalText(gramsToKg(f.RealWeightG), 1), COL.weight.x, y, COL.weight.w, 'right');
    cell(pdf, vatLabel(line.lines[0]?.VatPercent ?? 0), COL.vat.x, y, COL.vat.w, 'right');
    font(pdf, 'bold', 8.5);
    cell(pdf, nokText(line.totalOre), COL.amount.x, y, COL.amount.w, 'right');
    y += ROW;
    const route = `${f.PickupZip ?? '–'} ${f.PickupCountry ?? 'NO'} → ${f.DeliveryZip ?? '–'} ${f.DeliveryCountry ?? 'NO'}`;
    const delivered = f.DeliveryDate ? `, levert ${norwegianDate(f.DeliveryDate)}` : '';
    const ref = f.SenderReference ? `, ref. ${f.SenderReference.slice(0, 15)}` : '';
    font(pdf, 'regular', 7.5, GREY);
    cell(pdf, `${f.ProductName}, ${route}${delivered}${ref}`, COL.what.x + 10, y, COL.amount.x - M - 14);
    y += ROW - 1;
    for (const c of line.lines) {
      room(ROW);
      const name = COST_CODES[c.CostTypeCode]?.no ?? f.Services.find((s) => s.Code === c.CostTypeCode)?.Name;
      font(pdf, 'regular', 8, '#222');
      cell(pdf, name ?? c.Description, COL.what.x + 10, y, COL.what.w - 10);
      cell(pdf, nokText(c.AmountOre), COL.amount.x, y, COL.amount.w, 'right');
      y += ROW - 1;
    }
    pdf
      .moveTo(M, y + 2)
      .lineTo(M + WIDTH, y + 2)
      .lineWidth(0.3)
      .strokeColor('#bbb')
      .stroke();
    y += 6;
  }

  // Totals: excluding VAT, VAT per rate, including VAT.
  const all = lines.flatMap((l) => l.lines);
  const groups = vatByRate(all);
  const vat = vatSum(all);
  const exempt = groups.some((g) => g.percent === 0);
  const totals: [string, string, boolean][] = [
    ['Sum eks. mva / Total excl. VAT', nokText(invoice.totalOre), false],
  ];
  for (const g of groups) {
    totals.push(
      g.percent === 0
        ? [`Grunnlag fritatt for mva* / VAT exempt`, nokText(g.basisOre), false]
        : [`Grunnlag ${g.percent} % mva / Basis ${g.percent} % VAT`, nokText(g.basisOre), false],
      [`Mva ${g.percent} % / VAT ${g.percent} %`, nokText(g.vatOre), false],
    );
  }
  totals.push(
    ['Sum mva / Total VAT', nokText(vat), false],
    [
      invoice.isCredit
        ? 'Til gode inkl. mva / Credit incl. VAT (NOK)'
        : 'Å betale inkl. mva / Total incl. VAT (NOK)',
      nokText(invoice.totalOre + vat),
      true,
    ],
  );
  room(totals.length * 15 + (exempt ? 30 : 0) + 80, false);
  y += 6;
  for (const [label, value, strong] of totals) {
    if (strong) {
      pdf
        .moveTo(M + 170, y - 2)
        .lineTo(M + WIDTH, y - 2)
        .lineWidth(0.7)
        .strokeColor('#000')
        .stroke();
      y += 2;
    }
    font(pdf, strong ? 'bold' : 'regular', strong ? 10 : 9);
    cell(pdf, label, M + 170, y, 250, 'left');
    cell(pdf, value, M + 420, y, WIDTH - 420, 'right');
    y += strong ? 17 : 14;
  }
  if (exempt) {
    font(pdf, 'regular', 8, GREY).text(`* ${EXPORT_EXEMPTION_NO}. / ${EXPORT_EXEMPTION_EN}.`, M, y + 4, {
      width: WIDTH,
    });
    y = pdf.y;
  }

  // Payment.
  y += 14;
  pdf.rect(M, y, WIDTH, 44).lineWidth(0.7).strokeColor('#000').stroke();
  if (invoice.isCredit) {
    font(pdf, 'regular', 9).text(
      `Kreditnotaen motregnes mot faktura ${invoice.creditsInvoiceNr ?? ''}. / The credit note is set off against the invoice it credits.`,
      M + 10,
      y + 10,
      { width: WIDTH - 20 },
    );
  } else {
    const pay: [string, string][] = [
      ['Kontonummer / Account', formatBankAccount(seller.bankAccount)],
      ['KID', invoice.kid],
      ['Beløp / Amount NOK', nokText(invoice.totalOre + vat)],
      ['Forfall / Due', norwegianDate(invoice.dueDate)],
    ];
    const w = (WIDTH - 20) / pay.length;
    pay.forEach(([label, value], i) => {
      font(pdf, 'regular', 8, GREY);
      cell(pdf, label, M + 10 + i * w, y + 8, w - 6);
      font(pdf, 'bold', 11);
      cell(pdf, value, M + 10 + i * w, y + 21, w - 6);
    });
  }

  // Footer on every page: the seller again and the page number.
  const range = pdf.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    pdf.switchToPage(i);
    const bottom = pdf.page.margins.bottom;
    pdf.page.margins.bottom = 0; // writing below the margin would otherwise start a new page
    font(pdf, 'regular', 7.5, GREY);
    cell(
      pdf,
      `${seller.name} · ${seller.address.join(', ')} · Org.nr. ${formatOrgNr(seller.orgNr)} MVA`,
      M,
      A4[1] - M + 8,
      WIDTH - 80,
    );
    cell(pdf, `Side ${i + 1} av ${range.count}`, M + WIDTH - 80, A4[1] - M + 8, 80, 'right');
    pdf.page.margins.bottom = bottom;
  }
  pdf.end();
  await done;
}

import type { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import PDFDocument from 'pdfkit';
import { formatBankAccount, formatOrgNr } from '../lib/mod11';
import { type FontName, registerFonts } from '../lib/pdf-fonts';
import { gramsToKg } from '../lib/units';
import { COST_CODES } from './cost-codes';
import { decimalText, nokText, norwegianDate } from './format';
import {
  A4,
  HEADER_H,
  type InvoiceDocument,
  M,
  Pager,
  shipmentRows,
  survey,
  totalsHeight,
  WIDTH,
} from './pdf-layout';
import type { InvoicedAddress } from './tables';
import { EXPORT_EXEMPTION_EN, EXPORT_EXEMPTION_NO } from './vat';

export type { InvoiceDocument } from './pdf-layout';

/**
 * The invoice or credit note as an A4 PDF with what bokføringsforskriften § 5-1-1 asks of a sales
 * document: the seller (name, organisation number followed by `MVA`, address), the buyer (name,
 * organisation number, address), number, date, delivery period, what was delivered, amounts excluding
 * VAT, VAT per rate (exempt transport stated as such), the total including VAT, due date, bank account
 * and KID. Every figure comes from the frozen invoice lines; nothing is recomputed here.
 */

type Doc = InstanceType<typeof PDFDocument>;
type Align = 'left' | 'right';

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

/** A horizontal rule from `x` to the right margin. */
function drawRule(doc: Doc, x: number, y: number, width: number, color: string) {
  doc
    .moveTo(x, y)
    .lineTo(M + WIDTH, y)
    .lineWidth(width)
    .strokeColor(color)
    .stroke();
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

/** Shipments drawn between two turns of the event loop (a page holds about twenty). */
const SHIPMENTS_PER_TURN = 20;
/** Output held before drawing waits for the client to read it. */
const HELD_BYTES = 1 << 20;

const vatLabel = (percent: number) => (percent === 0 ? 'fritatt*' : `${percent} %`);

/** Pages drawn between two clearings of pdfkit's word layouts (`forgetWordLayouts`). */
const PAGES_PER_LAYOUT_CACHE = 50;

/**
 * Empties pdfkit's cache of laid-out words. pdfkit keeps every word it has laid out, per font, for
 * the document's life, and every shipment brings words of its own (ids, references, names): ~1 GB
 * at 60 000 shipments. Without the cache (`fontLayoutCache: false`) drawing took three times as long,
 * as the words that do repeat (amounts, dates, cost names) were laid out again each time. pdfkit has
 * no public way to bound it; `src/invoicing/invoice-pdf.test.ts` fails if these fields move.
 */
export function forgetWordLayouts(pdf: Doc): void {
  const fonts = (pdf as unknown as { _fontFamilies: Record<string, { layoutCache?: object }> })._fontFamilies;
  for (const font of Object.values(fonts)) if (font.layoutCache) font.layoutCache = Object.create(null);
}

/**
 * Resolves when the output has room again: drawing waits while more than `heldBytes` wait to be
 * read (a slow client), and stops waiting when the client has gone (`out` destroyed).
 */
async function roomInOutput(pdf: Doc, out: Writable, heldBytes: number): Promise<void> {
  while (pdf.readableLength > heldBytes && !out.destroyed) {
    await new Promise<void>((resolve) => {
      const done = () => {
        out.off('drain', done);
        out.off('close', done);
        resolve();
      };
      out.on('drain', done);
      out.on('close', done);
    });
  }
}

/**
 * Draws the document page by page, sending each page as it is finished: the lines are read twice,
 * a page of them at a time, first to count the pages ("Side n av N" is on every page) and sum the
 * VAT, then to draw. Memory stays that of a few pages, whatever the invoice's size.
 */
export async function renderInvoicePdf(doc: InvoiceDocument, out: Writable, heldBytes = HELD_BYTES) {
  const { invoice, seller } = doc;
  const { costLines, groups, period } = await survey(doc.lines);
  const pdf = new PDFDocument({
    size: A4,
    margin: M,
    compress: true,
    info: {
      Title: `${seller.name} ${invoice.isCredit ? 'kreditnota' : 'faktura'} ${invoice.invoiceNr}`,
      Creator: 'Kolli',
    },
  });
  registerFonts(pdf);
  const done = new Promise<void>((resolve, reject) => {
    out.on('finish', resolve);
    out.on('close', resolve);
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
    ['Leveringsperiode / Delivery period', period],
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
    drawRule(pdf, M, at + 12, 0.7, '#000');
    return at + HEADER_H;
  };

  // Totals: excluding VAT, VAT per rate, including VAT.
  const vat = groups.reduce((t, g) => t + g.vatOre, 0);
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

  // The page count: the table's steps walked without drawing, from where the table starts.
  const tableTop = y + 8 + HEADER_H;
  const counter = new Pager(tableTop, (withHeader) => (withHeader ? M + HEADER_H : M));
  for (const n of costLines) shipmentRows(counter, n);
  counter.room(totalsHeight(totals.length, exempt), false);
  const pageCount = counter.page;

  // Footer on every page, drawn as the page is finished: the seller again and the page number.
  const footer = (page: number) => {
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
    cell(pdf, `Side ${page} av ${pageCount}`, M + WIDTH - 80, A4[1] - M + 8, 80, 'right');
    pdf.page.margins.bottom = bottom;
  };
  const pager = new Pager(header(y + 8), (withHeader) => {
    footer(pager.page - 1);
    pdf.addPage(); // sends the finished page (pages are not buffered)
    if (pager.page % PAGES_PER_LAYOUT_CACHE === 0) forgetWordLayouts(pdf);
    return withHeader ? header(M) : M;
  });

  let drawn = 0;
  for await (const page of doc.lines()) {
    for (const line of page) {
      // An invoice of 50 000 shipments takes a while to draw: let other requests run meanwhile,
      // and let a slow client read what is drawn.
      if (++drawn % SHIPMENTS_PER_TURN === 0) {
        await nextTurn();
        await roomInOutput(pdf, out, heldBytes);
        if (out.destroyed) return; // the client has gone: nobody reads the rest
      }
      const f = line.facts;
      shipmentRows(pager, line.lines.length, {
        head(at) {
          font(pdf, 'bold', 8.5);
          cell(pdf, `Sending ${line.shipmentId}`, COL.what.x, at, COL.what.w);
          font(pdf, 'regular', 8.5);
          cell(pdf, norwegianDate(line.pickupDate), COL.date.x, at, COL.date.w);
          cell(pdf, String(f.NumberOfParcels), COL.parcels.x, at, COL.parcels.w, 'right');
          cell(pdf, decimalText(gramsToKg(f.RealWeightG), 1), COL.weight.x, at, COL.weight.w, 'right');
          cell(pdf, vatLabel(line.lines[0]?.VatPercent ?? 0), COL.vat.x, at, COL.vat.w, 'right');
          font(pdf, 'bold', 8.5);
          cell(pdf, nokText(line.totalOre), COL.amount.x, at, COL.amount.w, 'right');
        },
        route(at) {
          const route = `${f.PickupZip ?? '–'} ${f.PickupCountry ?? 'NO'} → ${f.DeliveryZip ?? '–'} ${f.DeliveryCountry ?? 'NO'}`;
          // The frozen date is the delivery's when it came before the run, else the plan (most runs
          // come first): a word true of both, neither "levert" nor "planlagt".
          const delivered = f.DeliveryDate ? `, levering ${norwegianDate(f.DeliveryDate)}` : '';
          const ref = f.SenderReference ? `, ref. ${f.SenderReference.slice(0, 15)}` : '';
          font(pdf, 'regular', 7.5, GREY);
          cell(
            pdf,
            `${f.ProductName}, ${route}${delivered}${ref}`,
            COL.what.x + 10,
            at,
            COL.amount.x - M - 14,
          );
        },
        cost(i, at) {
          const c = line.lines[i];
          if (!c) return;
          const name =
            COST_CODES[c.CostTypeCode]?.no ?? f.Services.find((s) => s.Code === c.CostTypeCode)?.Name;
          font(pdf, 'regular', 8, '#222');
          cell(pdf, name ?? c.Description, COL.what.x + 10, at, COL.what.w - 10);
          cell(pdf, nokText(c.AmountOre), COL.amount.x, at, COL.amount.w, 'right');
        },
        rule: (at) => drawRule(pdf, M, at + 2, 0.3, '#bbb'),
      });
    }
  }

  pager.room(totalsHeight(totals.length, exempt), false);
  y = pager.y + 6;
  for (const [label, value, strong] of totals) {
    if (strong) {
      drawRule(pdf, M + 170, y - 2, 0.7, '#000');
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
  footer(pager.page);
  if (pager.page !== pageCount)
    throw new Error(`invoice ${invoice.invoiceNr}: drew ${pager.page} pages, counted ${pageCount}`);
  pdf.end();
  await done;
}

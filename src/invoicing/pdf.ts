import type { Writable } from 'node:stream';
import PDFDocument from 'pdfkit';
import { registerFonts } from '../lib/pdf-fonts';
import { formatAmount, gramsToKg } from '../lib/units';
import type { InvoiceRow, InvoiceShipmentRow } from './store';

const A4: [number, number] = [595.28, 841.89];
const M = 50; // margin
const WIDTH = A4[0] - 2 * M;

/** Table columns: shipment, pickup date, route, parcels, weight, amount (x and width in points). */
const COLUMNS = [
  { title: 'Sending / Shipment', x: M, w: 120, align: 'left' },
  { title: 'Hentet / Pickup', x: M + 122, w: 78, align: 'left' },
  { title: 'Fra–til / Route', x: M + 202, w: 90, align: 'left' },
  { title: 'Kolli', x: M + 294, w: 40, align: 'right' },
  { title: 'Vekt kg', x: M + 336, w: 60, align: 'right' },
  { title: 'Beløp / Amount', x: M + 398, w: WIDTH - 398, align: 'right' },
] as const;

const kg = (grams: number) => gramsToKg(grams).toFixed(1).replace('.', ',');
const nok = (ore: number) => formatAmount(ore).replace('.', ',');

/**
 * An issued invoice or credit note as an A4 PDF, written to `out`: the payer, number, KID and dates,
 * one row per shipment with its total, and the sum. Amounts are NOK excluding VAT, as invoiced.
 */
export async function renderInvoicePdf(invoice: InvoiceRow, lines: InvoiceShipmentRow[], out: Writable) {
  const doc = new PDFDocument({
    size: A4,
    margin: M,
    compress: true,
    info: {
      Title: `Kolli ${invoice.isCredit ? 'credit note' : 'invoice'} ${invoice.invoiceNr}`,
      Creator: 'Kolli',
    },
  });
  registerFonts(doc);
  const done = new Promise<void>((resolve, reject) => {
    out.on('finish', resolve);
    out.on('error', reject);
    doc.on('error', reject);
  });
  doc.pipe(out);

  doc.font('wide').fontSize(22).text('KOLLI', M, M);
  doc
    .font('bold')
    .fontSize(16)
    .text(invoice.isCredit ? 'Kreditnota / Credit note' : 'Faktura / Invoice', M, M, {
      width: WIDTH,
      align: 'right',
    });

  const facts: [string, string][] = [
    ['Kunde / Customer', `${invoice.customerName} (${invoice.customerNr})`],
    ['Fakturanr. / Invoice no.', String(invoice.invoiceNr)],
    ['KID', invoice.kid],
    ['Fakturadato / Invoice date', invoice.invoiceDate],
    ['Forfallsdato / Due date', invoice.dueDate],
  ];
  if (invoice.creditsInvoiceNr !== null)
    facts.push(['Krediterer / Credits invoice', String(invoice.creditsInvoiceNr)]);
  if (invoice.reason) facts.push(['Årsak / Reason', invoice.reason]);
  let y = M + 50;
  for (const [label, value] of facts) {
    doc.font('regular').fontSize(9).fillColor('#444').text(label, M, y, { width: 160 });
    doc
      .font('bold')
      .fontSize(10)
      .fillColor('#000')
      .text(value, M + 165, y - 1, { width: WIDTH - 165 });
    y += 16;
  }

  const header = (top: number) => {
    doc.font('bold').fontSize(8.5).fillColor('#000');
    for (const c of COLUMNS) doc.text(c.title, c.x, top, { width: c.w, align: c.align });
    doc
      .moveTo(M, top + 13)
      .lineTo(M + WIDTH, top + 13)
      .lineWidth(0.7)
      .stroke();
    return top + 18;
  };
  y = header(y + 14);
  doc.font('regular').fontSize(9);
  for (const line of lines) {
    if (y > A4[1] - M - 60) {
      doc.addPage();
      y = header(M);
      doc.font('regular').fontSize(9);
    }
    const f = line.facts;
    const cells = [
      line.shipmentId,
      line.pickupDate,
      `${f.PickupZip ?? '–'} → ${f.DeliveryZip ?? '–'}`,
      String(f.NumberOfParcels),
      kg(f.RealWeightG),
      nok(line.totalOre),
    ];
    COLUMNS.forEach((c, i) => {
      doc.text(cells[i] ?? '', c.x, y, { width: c.w, align: c.align });
    });
    y += 14;
  }
  doc
    .moveTo(M, y + 2)
    .lineTo(M + WIDTH, y + 2)
    .lineWidth(0.7)
    .stroke();
  doc
    .font('bold')
    .fontSize(11)
    .text(`Sum NOK eks. mva. / Total NOK excl. VAT:  ${nok(invoice.totalOre)}`, M, y + 10, {
      width: WIDTH,
      align: 'right',
    });
  doc
    .font('regular')
    .fontSize(8.5)
    .fillColor('#444')
    .text(
      invoice.isCredit
        ? 'Kreditnotaen motregnes mot fakturaen den krediterer. / The credit note is set off against the invoice it credits.'
        : `Betal med KID ${invoice.kid} innen ${invoice.dueDate}. / Pay with KID ${invoice.kid} by ${invoice.dueDate}.`,
      M,
      y + 32,
      { width: WIDTH },
    );
  doc.end();
  await done;
}

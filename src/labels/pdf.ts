import type { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import PDFDocument from 'pdfkit';
import { type FontName, registerFonts } from '../lib/pdf-fonts';
import { type LinearBarcode, parcelBarcode, QUIET_ZONE_MODULES } from './barcode';
import { formatWeight, type LabelAddress, type LabelModel, zipLine } from './model';

/** 10 × 15 cm in PDF points (1 pt = 1/72 in): 283.46 × 425.20. */
export const PAGE_WIDTH = (100 / 25.4) * 72;
export const PAGE_HEIGHT = (150 / 25.4) * 72;

const M = 8; // page margin
const INNER = PAGE_WIDTH - 2 * M;

/** Widest bar module (0.53 mm; GS1 allows 0.495–1.016 mm for SSCC on logistic labels). */
const MAX_MODULE = 1.5;

type Doc = InstanceType<typeof PDFDocument>;

interface TextStyle {
  font?: FontName;
  size: number;
  /** Smallest size the text may shrink to before it is cut with an ellipsis. */
  min?: number;
  align?: 'left' | 'center' | 'right';
  color?: string;
}

/** One line of text in a box `width` wide: shrunk to fit, then cut with "…" if still too long. */
function line(doc: Doc, value: string, x: number, y: number, width: number, style: TextStyle): number {
  const font = style.font ?? 'regular';
  doc.font(font);
  let size = style.size;
  const min = style.min ?? style.size;
  doc.fontSize(size);
  while (size > min && doc.widthOfString(value) > width) {
    size -= 0.5;
    doc.fontSize(size);
  }
  let shown = value;
  if (doc.widthOfString(shown) > width) {
    // Cut by code points: half of a surrogate pair would print as "�".
    const chars = [...shown];
    while (chars.length > 1 && doc.widthOfString(`${chars.join('')}…`) > width) chars.pop();
    shown = `${chars.join('')}…`;
  }
  doc.fillColor(style.color ?? 'black');
  doc.text(shown, x, y, { width, align: style.align ?? 'left', lineBreak: false });
  return size * 1.17;
}

/** A small caption above a zone ("TIL / TO"). */
function caption(doc: Doc, value: string, x: number, y: number, width = INNER): void {
  line(doc, value, x, y, width, { font: 'bold', size: 6, color: '#333333' });
}

function rule(doc: Doc, y: number, weight = 0.75): void {
  doc
    .moveTo(M, y)
    .lineTo(PAGE_WIDTH - M, y)
    .lineWidth(weight)
    .strokeColor('black')
    .stroke();
}

/** Writes an address block; returns the y below it. */
function addressBlock(
  doc: Doc,
  a: LabelAddress,
  x: number,
  y: number,
  width: number,
  sizes: { name: number; body: number; zip: number },
  /** Both address lines on one line (the compact sender block). */
  joinLines = false,
): number {
  let at = y;
  const body = (value: string) => {
    at += line(doc, value, x, at, width, { size: sizes.body, min: sizes.body - 2 });
  };
  at += line(doc, a.Name, x, at, width, { font: 'bold', size: sizes.name, min: sizes.name - 3 });
  if (a.Attention) body(`Att. ${a.Attention}`);
  if (joinLines) {
    const both = [a.Address, a.Address2].filter((v) => v).join(', ');
    if (both) body(both);
  } else {
    if (a.Address) body(a.Address);
    if (a.Address2) body(a.Address2);
  }
  at += line(doc, zipLine(a), x, at, width, { font: 'bold', size: sizes.zip, min: sizes.zip - 3 });
  return at;
}

/** Draws the bars as filled rectangles (vectors: sharp at any printer resolution). */
function drawBars(doc: Doc, code: LinearBarcode, centreX: number, top: number, height: number): number {
  const module = Math.min(MAX_MODULE, INNER / (code.modules + 2 * QUIET_ZONE_MODULES));
  let x = centreX - (code.modules * module) / 2;
  code.widths.forEach((w, i) => {
    if (i % 2 === 0) doc.rect(x, top, w * module, height);
    x += w * module;
  });
  doc.fillColor('black').fill();
  return module;
}

function header(doc: Doc, label: LabelModel): void {
  line(doc, label.Carrier.toUpperCase(), M, 7, 110, { font: 'wide', size: 20 });
  if (label.IsReturn) {
    doc.rect(112, 5, 70, 24).fillColor('black').fill();
    line(doc, 'RETUR', 112, 7, 70, { font: 'wide', size: 13, align: 'center', color: 'white' });
    line(doc, 'RETURN', 112, 21, 70, { font: 'bold', size: 6, align: 'center', color: 'white' });
  }
  const right = PAGE_WIDTH - M - 95;
  line(doc, label.ProductName, right, 6, 95, { font: 'bold', size: 11, min: 7, align: 'right' });
  line(doc, `Produkt / Product ${label.ProductCode}`, right, 20, 95, { size: 7, min: 5, align: 'right' });
  rule(doc, 33, 1.5);
}

function senderZone(doc: Doc, label: LabelModel): void {
  caption(doc, 'FRA / FROM', M, 37);
  addressBlock(doc, label.Sender, M, 44, 170, { name: 8, body: 7.5, zip: 7.5 }, true);
  const x = M + 178;
  const w = PAGE_WIDTH - M - x;
  let y = 37;
  if (label.PickupDate) {
    caption(doc, 'HENTEDATO / PICKUP', x, y, w);
    line(doc, label.PickupDate, x, y + 7, w, { size: 8 });
    y += 20;
  }
  if (label.DeliveryDate) {
    caption(doc, 'LEVERING / DELIVERY', x, y, w);
    line(doc, label.DeliveryDate, x, y + 7, w, { font: 'bold', size: 8 });
  }
  rule(doc, 91);
}

function recipientZone(doc: Doc, label: LabelModel): void {
  const top = 94;
  caption(doc, 'TIL / TO', M, top);
  if (label.PickupPoint) {
    // The parcel goes to the pickup point; the recipient's name says who collects it.
    const r = label.Recipient;
    let y = top + 8;
    y += line(doc, r.Name, M, y, INNER, { font: 'bold', size: 11, min: 8 });
    if (r.Attention) y += line(doc, `Att. ${r.Attention}`, M, y, INNER, { size: 8.5, min: 7 });
    y += 3;
    doc
      .rect(M, y, INNER, 170 - y)
      .lineWidth(0.75)
      .strokeColor('black')
      .stroke();
    caption(doc, 'UTLEVERINGSSTED / PICKUP POINT', M + 4, y + 3, INNER - 8);
    addressBlock(doc, label.PickupPoint, M + 4, y + 11, INNER - 8, { name: 10, body: 9, zip: 11 });
  } else {
    addressBlock(doc, label.Recipient, M, top + 9, INNER, { name: 12.5, body: 10.5, zip: 13 });
  }
  rule(doc, 174, 1.5);
}

function routingZone(doc: Doc, label: LabelModel): void {
  const top = 178;
  const height = 52;
  caption(doc, 'TERMINAL', M, top);
  doc
    .rect(M, top + 8, 118, height - 8)
    .fillColor('black')
    .fill();
  line(doc, label.Routing.Terminal ?? '—', M, top + 13, 118, {
    font: 'wide',
    size: 30,
    min: 16,
    align: 'center',
    color: 'white',
  });
  const x = M + 128;
  const w = PAGE_WIDTH - M - x;
  caption(doc, 'POSTNUMMER / POSTAL CODE', x, top, w);
  const code =
    label.Routing.Country === 'NO'
      ? label.Routing.PostalCode
      : `${label.Routing.Country}-${label.Routing.PostalCode}`;
  line(doc, code, x, top + 9, w, { font: 'wide', size: 34, min: 16, align: 'center' });
  rule(doc, top + height + 4, 1.5);
}

function infoZone(doc: Doc, label: LabelModel): number {
  const top = 238;
  const col = INNER / 3;
  caption(doc, 'VEKT / WEIGHT', M, top, col);
  line(doc, formatWeight(label.WeightKg), M, top + 7, col - 4, { font: 'bold', size: 11, min: 8 });
  caption(doc, 'KOLLI / PARCEL', M + col, top, col);
  line(doc, `${label.ParcelNumber} / ${label.ParcelCount}`, M + col, top + 7, col - 4, {
    font: 'bold',
    size: 11,
    min: 8,
  });
  caption(doc, 'SENDINGSNR / SHIPMENT', M + 2 * col, top, col);
  line(doc, label.ShipmentId, M + 2 * col, top + 8, col, { size: 8.5, min: 6 });

  let y = top + 22;
  if (label.SenderReference) {
    caption(doc, 'REFERANSE / REFERENCE', M, y);
    // The full reference: shrink, then wrap to two lines, before anything is cut.
    doc.font('regular').fontSize(8);
    let size = 8;
    while (size > 6 && doc.heightOfString(label.SenderReference, { width: INNER }) > size * 2.4) {
      size -= 0.5;
      doc.fontSize(size);
    }
    doc.fillColor('black').text(label.SenderReference, M, y + 7, {
      width: INNER,
      height: size * 2.4,
      ellipsis: true,
      lineGap: 0,
    });
    y += 7 + Math.min(doc.heightOfString(label.SenderReference, { width: INNER }), size * 2.4) + 2;
  }
  if (label.Services.length > 0) {
    // Driver-relevant services as white-on-black tags, so they stand out at a glance.
    let x = M;
    doc.font('bold').fontSize(7.5);
    for (const service of label.Services) {
      const tag = service.toUpperCase();
      const w = Math.min(doc.widthOfString(tag) + 8, INNER);
      if (x + w > PAGE_WIDTH - M) {
        x = M;
        y += 13;
      }
      doc.rect(x, y, w, 11).fillColor('black').fill();
      line(doc, tag, x + 4, y + 1.5, w - 8, { font: 'bold', size: 7.5, min: 5, color: 'white' });
      x += w + 4;
    }
    y += 13;
  }
  return y;
}

function barcodeZone(doc: Doc, label: LabelModel, infoBottom: number): void {
  const code = parcelBarcode(label);
  const top = Math.max(infoBottom + 2, 300);
  rule(doc, top);
  caption(doc, code.symbology === 'gs1-128' ? 'SSCC' : 'KOLLI-ID / PARCEL ID', M, top + 3);
  const barsTop = top + 12;
  const barsBottom = PAGE_HEIGHT - M - 15;
  drawBars(doc, code, PAGE_WIDTH / 2, barsTop, barsBottom - barsTop);
  line(doc, code.text, M, barsBottom + 3, INNER, { font: 'bold', size: 10, min: 6, align: 'center' });
}

function drawLabel(doc: Doc, label: LabelModel): void {
  doc.addPage({ size: [PAGE_WIDTH, PAGE_HEIGHT], margin: 0 });
  header(doc, label);
  senderZone(doc, label);
  recipientZone(doc, label);
  routingZone(doc, label);
  barcodeZone(doc, label, infoZone(doc, label));
}

/** Waits until `out` takes data again, or is gone (a client that disconnected). */
function drained(out: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      out.off('error', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
    out.on('error', done);
  });
}

/**
 * Writes one 10×15 cm page per label to `out` and ends it. Pages are flushed as they are drawn and
 * `out`'s backpressure is honoured, so a 999-parcel document never sits in memory whole. Other
 * requests run between pages: drawn in one go, a 999-page document held the event loop for a second.
 * Rejects if drawing fails or `out` closes early; the caller then destroys `out`.
 */
export async function renderPdf(
  labels: AsyncIterable<LabelModel> | Iterable<LabelModel>,
  out: Writable,
  info: { title?: string } = {},
): Promise<void> {
  const doc = new PDFDocument({
    autoFirstPage: false,
    size: [PAGE_WIDTH, PAGE_HEIGHT],
    margin: 0,
    compress: true,
    info: { Title: info.title ?? 'Kolli labels', Creator: 'Kolli', Producer: 'Kolli (pdfkit)' },
  });
  registerFonts(doc);

  doc.on('data', (chunk: Buffer) => {
    if (!out.destroyed) out.write(chunk);
  });
  const finished = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });

  let pages = 0;
  for await (const label of labels) {
    drawLabel(doc, label);
    pages++;
    if (out.writableNeedDrain) await drained(out);
    if (out.destroyed) throw new Error('The label output was closed before the document was complete.');
    await nextTurn();
  }
  if (pages === 0) doc.addPage({ size: [PAGE_WIDTH, PAGE_HEIGHT], margin: 0 });
  doc.end();
  await finished;
  out.end();
}

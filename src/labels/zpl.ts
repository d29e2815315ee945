import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parcelBarcode, QUIET_ZONE_MODULES } from './barcode';
import { formatWeight, type LabelAddress, type LabelModel, zipLine } from './model';

/**
 * ZPL II for 203 dpi (8 dots/mm) thermal printers with 10×15 cm media: 812 × 1218 dots.
 *
 * - `^CI28`: field data is UTF-8, so Æ Ø Å (and every other Latin letter font 0 has) print as given.
 * - `^FH_` on every text field: `_`, `^`, `~` and `\` in customer data are written as hex escapes and
 *   can never end a field, start a command or break a line.
 * - The SSCC barcode is `^BCN,…,N,N,N` (Code 128, no printer-made text) with field data
 *   `>;>800<SSCC>`: `>;` starts in subset C, `>8` is FNC1 (which makes Code 128 GS1-128), then the
 *   AI `00` and the 18 digits. This is the long-standing GS1-128 form every ZPL II firmware reads
 *   (`^BC` mode D needs firmware x.11+); the human-readable `(00) …` line is printed as text below.
 * - A customer's own parcel id is drawn bar by bar (`^GB`) from the Code 128 the PDF draws. `^BC`
 *   would not give those bars: without a start code it encodes every character in subset B, so a
 *   numeric id came out up to twice as wide as the bars it was sized and centred for (an 18-digit id
 *   ran 258 dots off the label), and under `^CI28` it is not known to encode Latin-1 letters
 *   (`ÆØÅ-1`) as the ISO 8859-1 a scanner reads.
 */
export const DOTS_WIDTH = 812;
export const DOTS_HEIGHT = 1218;

const M = 22; // margin, dots
const INNER = DOTS_WIDTH - 2 * M;

/** Font 0 (CG Triumvirate Bold Condensed) is about this wide per character, relative to its height. */
const CHAR_WIDTH = 0.56;

/** Field data safe for `^FH_`: the escape character and the ZPL command prefixes become hex. */
function fieldData(value: string): string {
  return (
    value
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what must go.
      .replace(/[\u0000-\u001f\u007f]/g, ' ')
      .replace(/_/g, '_5F')
      .replace(/\^/g, '_5E')
      .replace(/~/g, '_7E')
      // In a field block `\&` is a line break and `\\` one backslash.
      .replace(/\\/g, '_5C')
  );
}

interface TextOptions {
  /** Font height in dots; shrunk down to `min` when the estimated width does not fit. */
  h: number;
  min?: number;
  align?: 'L' | 'C' | 'R';
  /** White on black: only inside a black box. */
  reverse?: boolean;
}

/** One line of text in a field block `width` dots wide (shrunk, then cut with "…"). */
function text(value: string, x: number, y: number, width: number, o: TextOptions): string {
  let h = o.h;
  const min = o.min ?? o.h;
  const fits = (s: string, size: number) => [...s].length * size * CHAR_WIDTH <= width;
  while (h > min && !fits(value, h)) h -= 2;
  let shown = value;
  if (!fits(shown, h)) {
    const chars = [...shown];
    while (chars.length > 1 && !fits(`${chars.join('')}...`, h)) chars.pop();
    shown = `${chars.join('')}...`;
  }
  return `^FO${x},${y}^A0N,${h},${h}^FB${width},1,0,${o.align ?? 'L'}${o.reverse ? '^FR' : ''}^FH_^FD${fieldData(shown)}^FS`;
}

/** A caption over a zone ("TIL / TO"). */
const caption = (value: string, x: number, y: number, width = INNER) => text(value, x, y, width, { h: 18 });

/** A horizontal rule (a box of zero height). */
const rule = (y: number, thickness = 3) => `^FO${M},${y}^GB${INNER},${thickness},${thickness}^FS`;

/** A solid black box. */
const blackBox = (x: number, y: number, w: number, h: number) =>
  `^FO${x},${y}^GB${w},${h},${Math.min(w, h)}^FS`;

function addressBlock(
  a: LabelAddress,
  x: number,
  y: number,
  width: number,
  sizes: { name: number; body: number; zip: number },
  /** Both address lines on one line (the compact sender block). */
  joinLines = false,
): { zpl: string[]; bottom: number } {
  const zpl: string[] = [];
  let at = y;
  const add = (value: string, h: number) => {
    zpl.push(text(value, x, at, width, { h, min: h - 8 }));
    at += Math.round(h * 1.15);
  };
  add(a.Name, sizes.name);
  if (a.Attention) add(`Att. ${a.Attention}`, sizes.body);
  if (joinLines) {
    const both = [a.Address, a.Address2].filter((v) => v).join(', ');
    if (both) add(both, sizes.body);
  } else {
    if (a.Address) add(a.Address, sizes.body);
    if (a.Address2) add(a.Address2, sizes.body);
  }
  add(zipLine(a), sizes.zip);
  return { zpl, bottom: at };
}

function label(l: LabelModel): string {
  const z: string[] = ['^XA', '^CI28', `^PW${DOTS_WIDTH}`, `^LL${DOTS_HEIGHT}`, '^LH0,0'];

  // Head: carrier, return marking, product.
  z.push(text(l.Carrier.toUpperCase(), M, 24, 300, { h: 60 }));
  if (l.IsReturn) {
    z.push(blackBox(316, 14, 197, 68));
    z.push(text('RETUR', 316, 20, 197, { h: 40, align: 'C', reverse: true }));
    z.push(text('RETURN', 316, 60, 197, { h: 18, align: 'C', reverse: true }));
  }
  z.push(text(l.ProductName, 522, 18, 268, { h: 34, min: 20, align: 'R' }));
  z.push(text(`Produkt / Product ${l.ProductCode}`, 522, 58, 268, { h: 20, align: 'R' }));
  z.push(rule(93, 4));

  // Sender, with the dates on the right.
  z.push(caption('FRA / FROM', M, 102, 480));
  z.push(...addressBlock(l.Sender, M, 124, 480, { name: 24, body: 22, zip: 22 }, true).zpl);
  let dy = 102;
  if (l.PickupDate) {
    z.push(caption('HENTEDATO / PICKUP', 524, dy, 266));
    z.push(text(l.PickupDate, 524, dy + 20, 266, { h: 24 }));
    dy += 56;
  }
  if (l.DeliveryDate) {
    z.push(caption('LEVERING / DELIVERY', 524, dy, 266));
    z.push(text(l.DeliveryDate, 524, dy + 20, 266, { h: 24 }));
  }
  z.push(rule(256));

  // Recipient, or recipient name + pickup point.
  z.push(caption('TIL / TO', M, 266));
  if (l.PickupPoint) {
    let y = 288;
    z.push(text(l.Recipient.Name, M, y, INNER, { h: 34, min: 24 }));
    y += 40;
    if (l.Recipient.Attention) {
      z.push(text(`Att. ${l.Recipient.Attention}`, M, y, INNER, { h: 26, min: 20 }));
      y += 30;
    }
    y += 6;
    z.push(`^FO${M},${y}^GB${INNER},${480 - y},3^FS`);
    z.push(caption('UTLEVERINGSSTED / PICKUP POINT', M + 12, y + 8, INNER - 24));
    z.push(...addressBlock(l.PickupPoint, M + 12, y + 30, INNER - 24, { name: 30, body: 26, zip: 32 }).zpl);
  } else {
    z.push(...addressBlock(l.Recipient, M, 290, INNER, { name: 36, body: 30, zip: 38 }).zpl);
  }
  z.push(rule(490, 5));

  // Routing in large type: terminal (white on black) and destination postal code.
  z.push(caption('TERMINAL', M, 502, 333));
  z.push(blackBox(M, 524, 333, 124));
  z.push(text(l.Routing.Terminal ?? '-', M, 538, 333, { h: 96, min: 50, align: 'C', reverse: true }));
  const code =
    l.Routing.Country === 'NO' ? l.Routing.PostalCode : `${l.Routing.Country}-${l.Routing.PostalCode}`;
  z.push(caption('POSTNUMMER / POSTAL CODE', 383, 502, 407));
  z.push(text(code, 383, 530, 407, { h: 110, min: 50, align: 'C' }));
  z.push(rule(660, 5));

  // Weight, parcel n / m, shipment number; reference in full; services as black tags.
  const col = Math.floor(INNER / 3);
  z.push(caption('VEKT / WEIGHT', M, 672, col));
  z.push(text(formatWeight(l.WeightKg), M, 692, col - 10, { h: 32, min: 22 }));
  z.push(caption('KOLLI / PARCEL', M + col, 672, col));
  z.push(text(`${l.ParcelNumber} / ${l.ParcelCount}`, M + col, 692, col - 10, { h: 32, min: 22 }));
  z.push(caption('SENDINGSNR / SHIPMENT', M + 2 * col, 672, col));
  z.push(text(l.ShipmentId, M + 2 * col, 696, col, { h: 26, min: 16 }));
  let y = 734;
  if (l.SenderReference) {
    z.push(caption('REFERANSE / REFERENCE', M, y));
    // Two lines of 22 dots hold about this many characters; longer references shrink to 18 dots.
    const perLine = (h: number) => Math.floor(INNER / (h * CHAR_WIDTH));
    const h = [...l.SenderReference].length <= 2 * perLine(22) ? 22 : 18;
    const max = 2 * perLine(h);
    const chars = [...l.SenderReference];
    const ref = chars.length <= max ? l.SenderReference : `${chars.slice(0, max - 1).join('')}...`;
    z.push(`^FO${M},${y + 20}^A0N,${h},${h}^FB${INNER},2,2,L^FH_^FD${fieldData(ref)}^FS`);
    y += 20 + 2 * (h + 2) + 6;
  }
  if (l.Services.length > 0) {
    let x = M;
    for (const service of l.Services) {
      const tag = service.toUpperCase();
      const w = Math.min(Math.ceil([...tag].length * 22 * CHAR_WIDTH) + 24, INNER);
      if (x + w > DOTS_WIDTH - M) {
        x = M;
        y += 38;
      }
      z.push(blackBox(x, y, w, 32));
      z.push(text(tag, x + 12, y + 6, w - 24, { h: 22, min: 14, reverse: true }));
      x += w + 12;
    }
    y += 38;
  }

  // The barcode, centred with its quiet zones, and its text.
  const bc = parcelBarcode(l);
  const top = Math.max(y + 4, 846);
  z.push(rule(top));
  z.push(caption(bc.symbology === 'gs1-128' ? 'SSCC' : 'KOLLI-ID / PARCEL ID', M, top + 10));
  const module = Math.max(1, Math.min(4, Math.floor(INNER / (bc.modules + 2 * QUIET_ZONE_MODULES))));
  const barsTop = top + 36;
  const barsHeight = DOTS_HEIGHT - M - 44 - barsTop;
  const x0 = Math.max(0, Math.round((DOTS_WIDTH - bc.modules * module) / 2));
  if (l.Sscc) {
    z.push(
      `^FO${x0},${barsTop}^BY${module},3,${barsHeight}^BCN,${barsHeight},N,N,N^FH_^FD>;>800${l.Sscc}^FS`,
    );
  } else {
    let x = x0;
    bc.widths.forEach((w, i) => {
      if (i % 2 === 0) z.push(`^FO${x},${barsTop}^GB${w * module},${barsHeight},${w * module}^FS`);
      x += w * module;
    });
  }
  z.push(text(bc.text, M, DOTS_HEIGHT - M - 36, INNER, { h: 32, min: 20, align: 'C' }));

  z.push('^PQ1', '^XZ');
  return z.join('\n');
}

/**
 * One `^XA…^XZ` block per label, in order, each followed by a line break, as a stream of UTF-8
 * text. Other requests run between labels: built in one go, 999 took the event loop for 0.15–0.4 s.
 */
export function renderZpl(labels: Iterable<LabelModel>): Readable {
  async function* blocks() {
    for (const l of labels) {
      yield `${label(l)}\n`;
      await nextTurn();
    }
  }
  return Readable.from(blocks());
}

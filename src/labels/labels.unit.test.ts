import { PassThrough, Writable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { finished } from 'node:stream/promises';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, test } from 'vitest';
import { turnsWhileRendering } from '../../test/turns';
import { parcelBarcode, QUIET_ZONE_MODULES } from './barcode';
import { formatSscc, formatWeight, isSscc, type LabelModel, toLabelModels } from './model';
import { renderPdf } from './pdf';
import { sampleShipment, sampleSscc } from './sample';
import { DOTS_WIDTH, renderZpl } from './zpl';

/**
 * Code 128 bar/space widths of symbol values 0–106 (ISO/IEC 15417 table 1), to decode what bwip-js
 * produced independently of it.
 */
const CODE128 = (
  '212222 222122 222221 121223 121322 131222 122213 122312 132212 221213 221312 231212 112232 122132 ' +
  '122231 113222 123122 123221 223211 221132 221231 213212 223112 312131 311222 321122 321221 312212 ' +
  '322112 322211 212123 212321 232121 111323 131123 131321 112313 132113 132311 211313 231113 231311 ' +
  '112133 112331 132131 113123 113321 133121 313121 211331 231131 213113 213311 213131 311123 311321 ' +
  '331121 312113 312311 332111 314111 221411 431111 111224 111422 121124 121421 141122 141221 112214 ' +
  '112412 122114 122411 142112 142211 241211 221114 413111 241112 134111 111242 121142 121241 114212 ' +
  '124112 124211 411212 421112 421211 212141 214121 412121 111143 111341 131141 114113 114311 411113 ' +
  '411311 113141 114131 311141 411131 211412 211214 211232'
).split(' ');
const STOP = '2331112';
const [START_A, START_B, START_C] = [103, 104, 105];
const [SHIFT, CODE_C, FNC1] = [98, 99, 102];

/**
 * Decodes a Code 128 symbol to its data as a scanner reports it: subsets A, B and C, FNC1 (which
 * makes it GS1-128) and FNC4, which adds 128 to the next character (ISO 8859-1) or, twice, to all
 * until the next pair.
 */
function decodeCode128(widths: readonly number[]): { fnc1: boolean; text: string } {
  const symbols: number[] = [];
  for (let i = 0; i < widths.length - STOP.length; i += 6) {
    const value = CODE128.indexOf(widths.slice(i, i + 6).join(''));
    if (value < 0) throw new Error(`no Code 128 symbol at element ${i}`);
    symbols.push(value);
  }
  expect(widths.slice(-7).join('')).toBe(STOP);
  const check = symbols.pop();
  expect(check).toBe(symbols.reduce((acc, v, i) => acc + v * Math.max(i, 1), 0) % 103);
  const [start, ...rest] = symbols;
  let set = start === START_A ? 'A' : start === START_B ? 'B' : start === START_C ? 'C' : '?';
  let [text, fnc1, latched, high, shifted] = ['', false, false, false, false];
  for (let i = 0; i < rest.length; i++) {
    const v = rest[i] ?? 0;
    const current = shifted ? (set === 'A' ? 'B' : 'A') : set;
    shifted = false;
    if (v === FNC1) fnc1 = true;
    else if (current === 'C') {
      if (v < 100) text += String(v).padStart(2, '0');
      else set = v === 100 ? 'B' : 'A';
    } else if (v === (current === 'A' ? 101 : 100)) {
      // FNC4: twice in a row latches the extended set, once shifts the next character.
      if (rest[i + 1] === v) {
        latched = !latched;
        i++;
      } else high = true;
    } else if (v === SHIFT) shifted = true;
    else if (v === CODE_C) set = 'C';
    else if (v === (current === 'A' ? 100 : 101)) set = current === 'A' ? 'B' : 'A';
    else {
      const ascii = current === 'B' || v < 64 ? v + 32 : v - 64;
      text += String.fromCharCode(ascii + (latched !== high ? 128 : 0));
      high = false;
    }
  }
  return { fnc1, text };
}

const zplOf = (labels: Iterable<LabelModel>) => text(renderZpl(labels));

async function pdfOf(labels: LabelModel[]): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  await renderPdf(labels, out);
  return Buffer.concat(chunks);
}

async function pdfPages(pdf: Buffer) {
  const doc = await getDocument({ data: new Uint8Array(pdf), verbosity: 0 }).promise;
  const pages: { view: number[]; text: string }[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const content = await page.getTextContent();
    const text = content.items.map((item) => ('str' in item ? item.str : '')).join('\n');
    pages.push({ view: page.view, text });
  }
  return pages;
}

describe('label model', () => {
  test('one label per parcel, in parcel order, numbered n / m', () => {
    const labels = toLabelModels(sampleShipment(3));
    expect(labels.map((l) => [l.ParcelId, l.ParcelNumber, l.ParcelCount])).toEqual([
      [sampleSscc(1), 1, 3],
      [sampleSscc(2), 2, 3],
      [sampleSscc(3), 3, 3],
    ]);
    expect(labels[0]?.Sscc).toBe(sampleSscc(1));
    expect(labels[0]?.WeightKg).toBe(12.5);
  });

  test('Fix Day prints the delivery date; the sender reference is kept in full', () => {
    const [label] = toLabelModels(sampleShipment(1));
    expect(label?.Services).toEqual(['Pre-notice SMS', 'Fix Day 2026-11-25']);
    expect(label?.SenderReference).toBe('Ordre 2026-11-0042 / Innkjøp Ærø-Ålesund (kundens fulle referanse)');
    expect(label?.DeliveryDate).toBe('2026-11-25');
  });

  test('weights print to 10 g, rounded half up as the invoice report rounds them', () => {
    expect(formatWeight(12.5)).toBe('12,5 kg');
    expect(formatWeight(1.255)).toBe('1,26 kg');
    expect(formatWeight(1.005)).toBe('1,01 kg');
    expect(formatWeight(1.004)).toBe('1 kg');
    expect(formatWeight(null)).toBe('–');
  });

  test('company and person: the company is the name, the person the attention line', () => {
    const [label] = toLabelModels(sampleShipment(1));
    expect(label?.Recipient).toMatchObject({
      Name: 'Bjørnstjerne Æsøy Blåbærgården',
      Attention: 'Åse Løvås',
    });
    const [person] = toLabelModels(sampleShipment(1, { RecipientCompanyName: null }));
    expect(person?.Recipient).toMatchObject({ Name: 'Åse Løvås', Attention: null });
  });

  test('line breaks and control characters in a field print as spaces, in PDF and ZPL alike', () => {
    const [label] = toLabelModels(
      sampleShipment(1, {
        RecipientCompanyName: 'Fjord Frakt AS\nAvd. Lager\r\nPorten 3',
        RecipientPlace: 'BERGEN\u0085\u2028',
      }),
    );
    expect(label?.Recipient).toMatchObject({ Name: 'Fjord Frakt AS Avd. Lager  Porten 3', Place: 'BERGEN' });
  });

  test('a pickup point replaces the delivery address and routes the parcel', () => {
    const [label] = toLabelModels(
      sampleShipment(1, {
        PickupPointId: 4711,
        PickupPointCompanyName: 'Coop Extra Øya',
        PickupPointAddress: 'Klostergata 44',
        PickupPointZip: '7030',
        PickupPointPlace: 'Trondheim',
      }),
    );
    expect(label?.PickupPoint).toMatchObject({ Id: '4711', Name: 'Coop Extra Øya', Zip: '7030' });
    expect(label?.Routing).toEqual({ Terminal: 'TRD', PostalCode: '7030', Country: 'NO' });
  });

  test('a customer-given parcel id is no SSCC and gets a plain Code 128 barcode', () => {
    const shipment = sampleShipment(1, { Parcels: [{ ParcelId: 'ORDER-77/1', WeightKg: 2 }] });
    const [label] = toLabelModels(shipment);
    expect(label?.Sscc).toBeNull();
    const code = parcelBarcode({ Sscc: null, ParcelId: 'ORDER-77/1' });
    expect(code).toMatchObject({ symbology: 'code128', input: 'ORDER-77/1', text: 'ORDER-77/1' });
    expect(decodeCode128(code.widths)).toEqual({ fnc1: false, text: 'ORDER-77/1' });
    const wrong = `${sampleSscc(1).slice(0, 17)}${(Number(sampleSscc(1)[17]) + 1) % 10}`;
    expect(isSscc(wrong)).toBe(false);
    expect(isSscc(sampleSscc(1))).toBe(true);
  });
});

test('a parcel id with Norwegian letters scans back as itself (ISO 8859-1), not as the bytes of its UTF-8', () => {
  for (const id of ['ÆØÅ-1', 'Blåbær 7', 'æ', 'Ærø-ÅÅÅÅ-øy', 'x\u00a0ÿ']) {
    expect(decodeCode128(parcelBarcode({ Sscc: null, ParcelId: id }).widths)).toEqual({
      fnc1: false,
      text: id,
    });
  }
});

describe('GS1-128 barcode', () => {
  test('encodes FNC1, AI (00) and the SSCC, with a valid Code 128 check symbol', () => {
    const sscc = sampleSscc(42);
    const code = parcelBarcode({ Sscc: sscc, ParcelId: sscc });
    expect(code.input).toBe(`(00)${sscc}`);
    expect(code.symbology).toBe('gs1-128');
    expect(code.text).toBe(formatSscc(sscc));
    expect(decodeCode128(code.widths)).toEqual({ fnc1: true, text: `00${sscc}` });
    // Start C, FNC1, 10 digit pairs, check: 13 symbols of 11 modules, and the 13-module stop.
    expect(code.modules).toBe(13 * 11 + 13);
    expect(QUIET_ZONE_MODULES).toBeGreaterThanOrEqual(10);
  });
});

describe('PDF', () => {
  test('one 10×15 cm page per label with the SSCC, names, postal codes and Æ Ø Å as text', async () => {
    const labels = toLabelModels(sampleShipment(3));
    const pdf = await pdfOf(labels);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const pages = await pdfPages(pdf);
    expect(pages).toHaveLength(3);
    pages.forEach((page, i) => {
      expect(page.view.map(Math.round)).toEqual([0, 0, 283, 425]);
      expect(page.text).toContain(formatSscc(sampleSscc(i + 1)));
      expect(page.text).toContain(`${i + 1} / 3`);
      expect(page.text).toContain('Ærlige Øl & Åkervin AS');
      expect(page.text).toContain('Bjørnstjerne Æsøy Blåbærgården');
      expect(page.text).toContain('Att. Åse Løvås');
      expect(page.text).toContain('0668 OSLO');
      expect(page.text).toContain('7013 TRONDHEIM');
      expect(page.text).toContain('TRD');
      expect(page.text).toContain('70123450000001232');
      expect(page.text).toContain('Ordre 2026-11-0042 / Innkjøp Ærø-Ålesund (kundens fulle referanse)');
      expect(page.text).toContain('FIX DAY 2026-11-25');
    });
  });

  test('the barcode is drawn as vectors, not an image', async () => {
    const pdf = await pdfOf(toLabelModels(sampleShipment(1)));
    expect(pdf.includes('/Subtype /Image')).toBe(false);
  });

  test('return labels are marked and pickup points printed', async () => {
    const labels = toLabelModels(
      sampleShipment(1, {
        IsReturn: true,
        PickupPointId: 4711,
        PickupPointCompanyName: 'Coop Extra Øya',
        PickupPointAddress: 'Klostergata 44',
        PickupPointZip: '7030',
        PickupPointPlace: 'Trondheim',
      }),
    );
    const [page] = await pdfPages(await pdfOf(labels));
    expect(page?.text).toContain('RETUR');
    expect(page?.text).toContain('UTLEVERINGSSTED / PICKUP POINT');
    expect(page?.text).toContain('Coop Extra Øya');
    expect(page?.text).toContain('7030 TRONDHEIM');
    expect(page?.text).not.toContain('Kjøpmannsgata 12');
  });

  test('letters beyond Latin-1 print too (embedded DejaVu Sans)', async () => {
    const labels = toLabelModels(sampleShipment(1, { RecipientPlace: 'Łódź', RecipientCountry: 'PL' }));
    const [page] = await pdfPages(await pdfOf(labels));
    expect(page?.text).toContain('PL-7013 ŁÓDŹ');
  });

  test('a name cut to fit never cuts an emoji in half', async () => {
    const labels = toLabelModels(sampleShipment(1, { RecipientAddress2: '😀'.repeat(50) }));
    const [page] = await pdfPages(await pdfOf(labels));
    expect(page?.text).toMatch(/😀…/);
    expect(page?.text).not.toContain('\ufffd');
  });

  test('lets other work run between pages: a 999-page document does not hold the event loop', async () => {
    const turns = await turnsWhileRendering((out) => renderPdf(toLabelModels(sampleShipment(50)), out));
    // Drawn in one go the ticker got no turn until the end; now it gets one a page.
    expect(turns).toBeGreaterThanOrEqual(50);
  });

  test('honours backpressure of a slow consumer and still writes every page', async () => {
    const chunks: Buffer[] = [];
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk);
        setImmediate(done);
      },
    });
    await renderPdf(toLabelModels(sampleShipment(20)), slow);
    await finished(slow);
    expect(await pdfPages(Buffer.concat(chunks))).toHaveLength(20);
  });

  test('takes an async iterable', async () => {
    async function* labels() {
      yield* toLabelModels(sampleShipment(2));
    }
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    await renderPdf(labels(), out);
    expect(await pdfPages(Buffer.concat(chunks))).toHaveLength(2);
  });
});

describe('ZPL', () => {
  test('one ^XA…^XZ block per label with ^CI28 and the SSCC in the GS1-128 barcode field', async () => {
    const labels = toLabelModels(sampleShipment(3));
    const zpl = await zplOf(labels);
    const blocks = zpl.split('^XZ').filter((b) => b.trim());
    expect(blocks).toHaveLength(3);
    blocks.forEach((block, i) => {
      const sscc = sampleSscc(i + 1);
      expect(block.trim().startsWith('^XA')).toBe(true);
      expect(block).toContain('^CI28');
      expect(block).toContain('^PW812');
      expect(block).toContain('^LL1218');
      expect(block).toMatch(new RegExp(`\\^BCN,\\d+,N,N,N\\^FH_\\^FD>;>800${sscc}\\^FS`));
      expect(block).toContain(formatSscc(sscc));
      expect(block).toContain(`${i + 1} / 3`);
    });
  });

  test('Norwegian letters survive as UTF-8', async () => {
    const zpl = await zplOf(toLabelModels(sampleShipment(1)));
    expect(zpl).toContain('^FDÆrlige Øl & Åkervin AS^FS');
    expect(zpl).toContain('^FDBjørnstjerne Æsøy Blåbærgården^FS');
    expect(zpl).toContain('^FD7013 TRONDHEIM^FS');
    const bytes = Buffer.from(zpl, 'utf8');
    expect(bytes.includes(Buffer.from('Ø', 'utf8'))).toBe(true);
  });

  test('customer data cannot inject ZPL commands', async () => {
    const zpl = await zplOf(
      toLabelModels(
        sampleShipment(1, { RecipientCompanyName: 'Evil ^XZ^XA~JR_Co', SenderReference: 'a^FSb' }),
      ),
    );
    expect(zpl.match(/\^XA/g)).toHaveLength(1);
    expect(zpl).toContain('^FDEvil _5EXZ_5EXA_7EJR_5FCo^FS');
    expect(zpl).toContain('a_5EFSb');
  });

  test('a backslash prints as itself: in a field block \\& would break the line', async () => {
    const zpl = await zplOf(
      toLabelModels(sampleShipment(1, { RecipientCompanyName: 'Lager \\& Logistikk AS' })),
    );
    expect(zpl).toContain('^FDLager _5C& Logistikk AS^FS');
  });

  /** The bars a label drawn with `^GB` carries: their module, widths in modules, and extent in dots. */
  function drawnBars(zpl: string) {
    const bars = [...zpl.matchAll(/\^FO(\d+),\d+\^GB(\d+),(\d+),\d+\^FS/g)]
      .filter((m) => Number(m[3]) > 200) // the bars, not the rules
      .map((m) => ({ x: Number(m[1]), w: Number(m[2]) }));
    const module = Math.min(...bars.map((b) => b.w));
    const widths = bars.flatMap((b, i) => {
      const next = bars[i + 1];
      return next ? [b.w / module, (next.x - b.x - b.w) / module] : [b.w / module];
    });
    const last = bars.at(-1) ?? { x: 0, w: 0 };
    return { module, widths, left: bars[0]?.x ?? 0, right: last.x + last.w };
  }

  test('a parcel id with Norwegian letters is drawn bar by bar, and the bars scan back as the id', async () => {
    const zpl = await zplOf(
      toLabelModels(sampleShipment(1, { Parcels: [{ ParcelId: 'ÆØÅ-1', WeightKg: 1 }] })),
    );
    expect(zpl).not.toContain('^BC');
    expect(decodeCode128(drawnBars(zpl).widths)).toEqual({ fnc1: false, text: 'ÆØÅ-1' });
  });

  test('a numeric customer parcel id is drawn as the PDF draws it and fits the label with its quiet zones', async () => {
    // ^BC would encode the digits one by one (subset B): twice the width these bars were sized for.
    for (const id of ['123456789012345678', '12345678901234567890123456789012345', 'A>B_1^~\\']) {
      const zpl = await zplOf(toLabelModels(sampleShipment(1, { Parcels: [{ ParcelId: id, WeightKg: 1 }] })));
      expect(zpl).not.toContain('^BC');
      const bars = drawnBars(zpl);
      expect(decodeCode128(bars.widths)).toEqual({ fnc1: false, text: id });
      expect(bars.widths).toEqual(parcelBarcode({ Sscc: null, ParcelId: id }).widths);
      expect(bars.left).toBeGreaterThanOrEqual(QUIET_ZONE_MODULES * bars.module);
      expect(bars.right).toBeLessThanOrEqual(DOTS_WIDTH - QUIET_ZONE_MODULES * bars.module);
    }
  });
});

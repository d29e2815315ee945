import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type PDFDocument from 'pdfkit';

export type FontName = 'regular' | 'bold' | 'wide';

/**
 * DejaVu Sans (Bitstream Vera licence, free to embed and redistribute): covers Æ Ø Å and every other
 * Latin, Greek and Cyrillic letter an address may hold, where pdfkit's built-in Helvetica (WinAnsi)
 * would drop e.g. Polish Ł or Sámi Ŋ. pdfkit embeds only the glyphs used (a subset per document).
 */
const FONT_FILES: Record<FontName, string> = {
  regular: 'dejavu-fonts-ttf/ttf/DejaVuSansCondensed.ttf',
  bold: 'dejavu-fonts-ttf/ttf/DejaVuSansCondensed-Bold.ttf',
  wide: 'dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf',
};

let fontData: Record<FontName, Buffer> | undefined;

/** Registers the fonts under their names (`regular`, `bold`, `wide`); the files are read once per process. */
export function registerFonts(doc: InstanceType<typeof PDFDocument>): void {
  if (!fontData) {
    const require = createRequire(import.meta.url);
    const load = (name: FontName) => readFileSync(require.resolve(FONT_FILES[name]));
    fontData = { regular: load('regular'), bold: load('bold'), wide: load('wide') };
  }
  for (const name of Object.keys(fontData) as FontName[]) doc.registerFont(name, fontData[name]);
}

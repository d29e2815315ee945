import bwipjs from 'bwip-js';
import { formatSscc, type LabelModel } from './model';

/** A linear barcode as module widths, to draw as vector bars (PDF) or hand to a printer (ZPL). */
export interface LinearBarcode {
  /** What bwip-js was asked to encode (`(00)370123450000000014` for an SSCC). */
  readonly input: string;
  /** The symbology: GS1-128 for an SSCC, plain Code 128 for a customer's own parcel id. */
  readonly symbology: 'gs1-128' | 'code128';
  /** Alternating bar, space, bar, … widths in modules, starting with a bar. */
  readonly widths: readonly number[];
  /** Total width in modules, without the quiet zones. */
  readonly modules: number;
  /** The human-readable line printed under the bars. */
  readonly text: string;
}

/** Quiet zone on each side of the bars, in modules (GS1 General Specifications: at least 10). */
export const QUIET_ZONE_MODULES = 10;

/**
 * The parcel's barcode: GS1-128 of AI `(00)` + SSCC when the parcel id is an SSCC, else Code 128
 * of the customer's own parcel id (CONTRACT §5 keeps customer-given ids as given).
 */
export function parcelBarcode(label: Pick<LabelModel, 'Sscc' | 'ParcelId'>): LinearBarcode {
  const symbology = label.Sscc ? 'gs1-128' : 'code128';
  const input = label.Sscc ? `(00)${label.Sscc}` : label.ParcelId;
  // Code 128 carries ISO 8859-1 (ISO/IEC 15417), and scanners read its extended characters so:
  // the id's own Latin-1 characters, not the bytes of its UTF-8 (booking allows no others).
  const raw = bwipjs.raw({ bcid: symbology, text: input, binarytext: true });
  const first = raw[0];
  if (!first || !('sbs' in first)) throw new Error(`bwip-js gave no linear pattern for ${symbology}`);
  const widths = first.sbs;
  return {
    input,
    symbology,
    widths,
    modules: widths.reduce((sum, w) => sum + w, 0),
    text: label.Sscc ? formatSscc(label.Sscc) : label.ParcelId,
  };
}

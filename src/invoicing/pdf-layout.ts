import { setImmediate } from 'node:timers/promises';
import type { Config } from '../config';
import { norwegianDate } from './format';
import type { InvoiceRow, InvoiceShipmentRow } from './store';
import { vatTally } from './vat';

/**
 * The invoice PDF's geometry and page layout (`pdf.ts` draws it): where the table's rows fall, so
 * the pages can be counted before anything is drawn.
 */

export const A4: [number, number] = [595.28, 841.89];
export const M = 45; // margin
export const WIDTH = A4[0] - 2 * M;
export const BOTTOM = A4[1] - M - 20; // leave room for the footer
export const ROW = 12;
/** The table header's height. */
export const HEADER_H = 16;

/** An invoice or credit note to draw: its lines are read twice, a page at a time (see `renderInvoicePdf`). */
export interface InvoiceDocument {
  invoice: InvoiceRow;
  seller: Config['seller'];
  lines: () => AsyncIterable<readonly InvoiceShipmentRow[]>;
}

/** From the first pickup to the last delivery (planned, when not delivered yet). */
function deliveryPeriod(first: string | undefined, last: string | undefined): string {
  if (!first || !last) return '–';
  return first === last ? norwegianDate(first) : `${norwegianDate(first)}–${norwegianDate(last)}`;
}

/** What the first read of the lines learns: each shipment's cost-line count, the VAT, the period. */
export async function survey(lines: InvoiceDocument['lines']) {
  const costLines: number[] = [];
  const vat = vatTally();
  let first: string | undefined;
  let last: string | undefined;
  for await (const page of lines()) {
    for (const line of page) {
      costLines.push(line.lines.length);
      vat.add(line.lines);
      for (const date of [line.pickupDate, line.facts.DeliveryDate ?? line.pickupDate]) {
        if (first === undefined || date < first) first = date;
        if (last === undefined || date > last) last = date;
      }
    }
    await setImmediate();
  }
  return { costLines, groups: vat.groups(), period: deliveryPeriod(first, last) };
}

/**
 * Where the table's rows fall: `room` starts a new page (`turnPage` gives the new page's first y)
 * when a block does not fit below `y`. The count of the pages and the drawing walk the same steps
 * (`shipmentRows`), so the count is that of the pages drawn.
 */
export class Pager {
  page = 1;
  constructor(
    public y: number,
    private readonly turnPage: (withHeader: boolean) => number,
  ) {}

  room(height: number, withHeader = true): void {
    if (this.y + height <= BOTTOM) return;
    this.page += 1;
    this.y = this.turnPage(withHeader);
  }
}

/**
 * The rows of one shipment: its line, its route line, a line per cost, a rule. Kept together on one
 * page when they fit. `draw` draws each at the row's y; the page count passes none.
 */
export function shipmentRows(
  pager: Pager,
  costLines: number,
  draw?: {
    head(y: number): void;
    route(y: number): void;
    cost(i: number, y: number): void;
    rule(y: number): void;
  },
) {
  pager.room(ROW * (2 + costLines) + 4);
  draw?.head(pager.y);
  pager.y += ROW;
  draw?.route(pager.y);
  pager.y += ROW - 1;
  for (let i = 0; i < costLines; i++) {
    pager.room(ROW);
    draw?.cost(i, pager.y);
    pager.y += ROW - 1;
  }
  draw?.rule(pager.y);
  pager.y += 6;
}

/** The totals block's height, which must fit on the last page (with the payment box below it). */
export const totalsHeight = (rows: number, exempt: boolean) => rows * 15 + (exempt ? 30 : 0) + 80;

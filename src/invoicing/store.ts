import { and, asc, between, count, eq, gt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { invoiceNumbers, invoiceRuns, invoiceShipments, invoices } from './tables';

export type InvoiceRow = typeof invoices.$inferSelect;
export type InvoiceShipmentRow = typeof invoiceShipments.$inferSelect;

const _rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/** Invoice lines (12 columns each) written a statement. */
const LINES_PER_INSERT = 2000;

/** Where a report's line stands in its order: pickup date, shipment, invoice. */
export interface ReportLineKey {
  pickupDate: string;
  shipmentId: string;
  invoiceNr: number;
}

export function createInvoicingStore(db: DbOrTx) {
  return {
    /**
     * Takes the invoice-number lock for the rest of the transaction and returns the last number
     * issued. Runs (and credit notes) therefore follow one another: two at once never select the
     * same shipment and never skip or reuse a number.
     */
    async lockNumbers(): Promise<number> {
      await db.insert(invoiceNumbers).values({ id: 1, last: 0 }).onConflictDoNothing();
      const [row] = await db
        .select({ last: invoiceNumbers.last })
        .from(invoiceNumbers)
        .where(eq(invoiceNumbers.id, 1))
        .for('update');
      return row?.last ?? 0;
    },

    async saveLastNumber(last: number): Promise<void> {
      await db.update(invoiceNumbers).set({ last }).where(eq(invoiceNumbers.id, 1));
    },

    async insertRun(kind: 'run' | 'credit_note', toDate: string | null): Promise<number> {
      const [row] = await db.insert(invoiceRuns).values({ kind, toDate }).returning({ id: invoiceRuns.id });
      if (!row) throw new Error('invoice run not inserted');
      return row.id;
    },

    async insertInvoice(invoice: typeof invoices.$inferInsert) {
      await db.insert(invoices).values(invoice);
    },

    async insertLines(lines: (typeof invoiceShipments.$inferInsert)[]) {
      // A few thousand lines a statement: a statement takes at most 65 535 parameters.
      for (let i = 0; i < lines.length; i += LINES_PER_INSERT) {
        await db.insert(invoiceShipments).values(lines.slice(i, i + LINES_PER_INSERT));
      }
    },

    async invoice(invoiceNr: number): Promise<InvoiceRow | null> {
      const [row] = await db.select().from(invoices).where(eq(invoices.invoiceNr, invoiceNr));
      return row ?? null;
    },

    /** The invoices and credit notes a customer pays, dated in [from, to], with their shipment counts. */
    async invoicesOf(customerNr: string, from: string, to: string) {
      return db
        .select({ invoice: invoices, shipments: count(invoiceShipments.shipmentId) })
        .from(invoices)
        .leftJoin(invoiceShipments, eq(invoiceShipments.invoiceNr, invoices.invoiceNr))
        .where(and(eq(invoices.customerNr, customerNr), between(invoices.invoiceDate, from, to)))
        .groupBy(invoices.invoiceNr)
        .orderBy(asc(invoices.invoiceNr));
    },

    /** At most `limit` lines of an invoice after line `afterLineNr` (none: from the first), in order. */
    async linesPage(
      invoiceNr: number,
      afterLineNr: number | undefined,
      limit: number,
    ): Promise<InvoiceShipmentRow[]> {
      const after = afterLineNr === undefined ? [] : [gt(invoiceShipments.lineNr, afterLineNr)];
      return db
        .select()
        .from(invoiceShipments)
        .where(and(eq(invoiceShipments.invoiceNr, invoiceNr), ...after))
        .orderBy(asc(invoiceShipments.lineNr))
        .limit(limit);
    },

    /** Each line's shipment and total, in line order: what a credit note needs before it reads the lines. */
    async lineTotals(invoiceNr: number): Promise<{ shipmentId: string; totalOre: number }[]> {
      return db
        .select({ shipmentId: invoiceShipments.shipmentId, totalOre: invoiceShipments.totalOre })
        .from(invoiceShipments)
        .where(eq(invoiceShipments.invoiceNr, invoiceNr))
        .orderBy(asc(invoiceShipments.lineNr));
    },

    /** Shipments of an invoice that a credit note has already credited. */
    async creditedShipments(invoiceNr: number): Promise<Set<string>> {
      const rows = await db
        .select({ shipmentId: invoiceShipments.shipmentId })
        .from(invoiceShipments)
        .innerJoin(invoices, eq(invoices.invoiceNr, invoiceShipments.invoiceNr))
        .where(eq(invoices.creditsInvoiceNr, invoiceNr));
      return new Set(rows.map((r) => r.shipmentId));
    },

    /** Invoice report lines of a payer in a role and pickup-date interval (served by the report index). */
    async reportLines(q: {
      customerNr: string;
      role: string;
      from: string;
      to: string;
      pickupTerminal?: string | undefined;
      deliveryTerminal?: string | undefined;
      /** The last line of the page before, in the report's order; a page of `limit` lines after it. */
      after?: ReportLineKey | undefined;
      limit?: number;
    }): Promise<{ line: InvoiceShipmentRow; invoice: InvoiceRow }[]> {
      const conditions = [
        eq(invoiceShipments.payerCustomerNr, q.customerNr),
        eq(invoiceShipments.payerRole, q.role),
        between(invoiceShipments.pickupDate, q.from, q.to),
      ];
      if (q.pickupTerminal) conditions.push(eq(invoiceShipments.pickupTerminal, q.pickupTerminal));
      if (q.deliveryTerminal) conditions.push(eq(invoiceShipments.deliveryTerminal, q.deliveryTerminal));
      if (q.after) {
        conditions.push(
          sql`(${invoiceShipments.pickupDate}, ${invoiceShipments.shipmentId}, ${invoiceShipments.invoiceNr}) > (${q.after.pickupDate}::date, ${q.after.shipmentId}, ${q.after.invoiceNr})`,
        );
      }
      const ordered = db
        .select({ line: invoiceShipments, invoice: invoices })
        .from(invoiceShipments)
        .innerJoin(invoices, eq(invoices.invoiceNr, invoiceShipments.invoiceNr))
        .where(and(...conditions))
        .orderBy(
          asc(invoiceShipments.pickupDate),
          asc(invoiceShipments.shipmentId),
          asc(invoiceShipments.invoiceNr),
        );
      return q.limit === undefined ? ordered : ordered.limit(q.limit);
    },
  };
}

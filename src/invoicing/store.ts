import { and, asc, between, eq, sql } from 'drizzle-orm';
import type { FrozenPrice, ShipmentAddresses } from '../booking/tables';
import type { DbOrTx } from '../db/client';
import { invoiceNumbers, invoiceRuns, invoiceShipments, invoices } from './tables';

/** A picked-up shipment waiting to be invoiced, with its parcels summed and its pickup split. */
export interface Invoiceable {
  id: string;
  customerNr: string;
  recipientShallPay: boolean;
  recipientCustomerId: number | null;
  payerCustomerId: number | null;
  productCode: string;
  services: string[];
  unitCode: string;
  senderReference: string | null;
  addresses: ShipmentAddresses;
  pickupDate: string;
  deliveryDate: string | null;
  price: FrozenPrice;
  parcelCount: number;
  weightG: number;
  volumeCm3: number;
  split: boolean;
}

interface InvoiceableRow {
  id: string;
  customer_nr: string;
  recipient_shall_pay: boolean;
  recipient_customer_id: number | null;
  payer_customer_id: number | null;
  product_code: string;
  services: string[];
  unit_code: string;
  sender_reference: string | null;
  addresses: ShipmentAddresses;
  pickup_date: string;
  delivery_date: string | null;
  price: FrozenPrice;
  parcel_count: number | string;
  weight_g: number | string | null;
  volume_cm3: number | string | null;
  pickup_days: number | string | null;
  picked_parcels: number | string | null;
}

export type InvoiceRow = typeof invoices.$inferSelect;
export type InvoiceShipmentRow = typeof invoiceShipments.$inferSelect;

const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

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

    /** Published, picked-up, not cancelled, not yet invoiced shipments picked up on or before `toDate`. */
    async invoiceable(toDate: string): Promise<Invoiceable[]> {
      const result = await db.execute(sql`
        select s.id, s.customer_nr, s.recipient_shall_pay, s.recipient_customer_id, s.payer_customer_id,
               s.product_code, s.services, s.unit_code, s.sender_reference, s.addresses,
               s.pickup_date::text as pickup_date, s.price,
               -- The actual delivery (first Delivered scan, Oslo date) when there is one, else the planned date.
               coalesce((select (min(time) at time zone 'Europe/Oslo')::date from scan_events
                         where shipment_id = s.id and event_type = 'Delivered'), s.delivery_date)::text as delivery_date,
               p.parcel_count, p.weight_g, p.volume_cm3, k.pickup_days, k.picked_parcels
        from shipments s
        cross join lateral (
          select count(*) as parcel_count, coalesce(sum(weight_g), 0) as weight_g,
                 coalesce(sum(coalesce(volume_cm3, length_cm::bigint * width_cm * height_cm)), 0) as volume_cm3
          from parcels where shipment_id = s.id
        ) p
        cross join lateral (
          select count(distinct (first_scan at time zone 'Europe/Oslo')::date) as pickup_days,
                 count(*) as picked_parcels
          from (select min(time) as first_scan from scan_events
                where shipment_id = s.id and event_type = 'PickedUp' group by parcel_id) f
        ) k
        where s.status = 2 and s.cancelled_at is null and s.picked_up_at is not null and s.price is not null
          and s.pickup_date <= ${toDate}::date
          and not exists (select 1 from invoice_shipments i where i.shipment_id = s.id and not i.is_credit)
        order by s.pickup_date, s.id`);
      return rowsOf<InvoiceableRow>(result).map((r) => ({
        id: r.id,
        customerNr: r.customer_nr,
        recipientShallPay: r.recipient_shall_pay,
        recipientCustomerId: r.recipient_customer_id,
        payerCustomerId: r.payer_customer_id,
        productCode: r.product_code,
        services: r.services,
        unitCode: r.unit_code,
        senderReference: r.sender_reference,
        addresses: r.addresses,
        pickupDate: r.pickup_date,
        deliveryDate: r.delivery_date,
        price: r.price,
        parcelCount: Number(r.parcel_count),
        weightG: Number(r.weight_g ?? 0),
        volumeCm3: Number(r.volume_cm3 ?? 0),
        // As in the shipment listing: picked up on different days, or some parcels not yet.
        split: Number(r.pickup_days ?? 0) > 1 || Number(r.picked_parcels ?? 0) < Number(r.parcel_count),
      }));
    },

    async insertInvoice(
      invoice: typeof invoices.$inferInsert,
      lines: (typeof invoiceShipments.$inferInsert)[],
    ) {
      await db.insert(invoices).values(invoice);
      if (lines.length > 0) await db.insert(invoiceShipments).values(lines);
    },

    async invoice(invoiceNr: number): Promise<InvoiceRow | null> {
      const [row] = await db.select().from(invoices).where(eq(invoices.invoiceNr, invoiceNr));
      return row ?? null;
    },

    async linesOf(invoiceNr: number): Promise<InvoiceShipmentRow[]> {
      return db
        .select()
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
    }): Promise<{ line: InvoiceShipmentRow; invoice: InvoiceRow }[]> {
      const conditions = [
        eq(invoiceShipments.payerCustomerNr, q.customerNr),
        eq(invoiceShipments.payerRole, q.role),
        between(invoiceShipments.pickupDate, q.from, q.to),
      ];
      if (q.pickupTerminal) conditions.push(eq(invoiceShipments.pickupTerminal, q.pickupTerminal));
      if (q.deliveryTerminal) conditions.push(eq(invoiceShipments.deliveryTerminal, q.deliveryTerminal));
      return db
        .select({ line: invoiceShipments, invoice: invoices })
        .from(invoiceShipments)
        .innerJoin(invoices, eq(invoices.invoiceNr, invoiceShipments.invoiceNr))
        .where(and(...conditions))
        .orderBy(asc(invoiceShipments.pickupDate), asc(invoiceShipments.shipmentId), asc(invoices.invoiceNr));
    },
  };
}

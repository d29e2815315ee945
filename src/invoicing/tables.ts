import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/**
 * The last invoice number handed out. One row, updated inside the run's transaction: a rolled-back
 * run gives its numbers back, so numbers have no gaps (a sequence would leave gaps on rollback).
 */
export const invoiceNumbers = pgTable('invoice_numbers', {
  id: integer('id').primaryKey(),
  last: integer('last').notNull(),
});

/** One invoicing run (or one credit note issue): what it selected and when. */
export const invoiceRuns = pgTable('invoice_runs', {
  id: serial('id').primaryKey(),
  /** `run` (scheduled or admin) or `credit_note`. */
  kind: text('kind').notNull(),
  toDate: date('to_date', { mode: 'string' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** The payer's postal address as frozen on an invoice (the customer register's address fields). */
export interface InvoicedAddress {
  Address?: string;
  Address2?: string;
  Zip?: string;
  Place?: string;
  Country?: string;
}

/** An issued invoice or credit note; never changed once written. */
export const invoices = pgTable(
  'invoices',
  {
    invoiceNr: integer('invoice_nr').primaryKey(),
    runId: integer('run_id').notNull(),
    /** The paying customer. */
    customerNr: text('customer_nr').notNull(),
    customerName: text('customer_name').notNull(),
    /** The payer's organisation number and address as they were when the invoice was issued. */
    customerOrgNr: text('customer_org_nr'),
    customerAddress: jsonb('customer_address').$type<InvoicedAddress>(),
    /** True for a credit note (negative amounts). */
    isCredit: boolean('is_credit').notNull().default(false),
    /** For a credit note: the invoice it corrects. */
    creditsInvoiceNr: integer('credits_invoice_nr'),
    reason: text('reason'),
    kid: text('kid').notNull(),
    invoiceDate: date('invoice_date', { mode: 'string' }).notNull(),
    dueDate: date('due_date', { mode: 'string' }).notNull(),
    totalOre: bigint('total_ore', { mode: 'number' }).notNull(),
    /** NOK per EUR in force on the invoice date (decimal text), null when no rate table is in force. */
    nokPerEur: text('nok_per_eur'),
    /**
     * The seller as the invoice was issued by (name, organisation number, address, bank account), so
     * its document never changes; null for invoices issued before 29 November 2026 (the current one).
     */
    seller: jsonb('seller').$type<InvoiceSeller>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('invoices_customer_idx').on(t.customerNr, t.invoiceNr)],
);

/** The carrier as an invoice names it (`KOLLI_SELLER_*` when it was issued). */
export interface InvoiceSeller {
  name: string;
  orgNr: string;
  address: string[];
  bankAccount: string;
}

/**
 * A cost line as invoiced (amounts in øre; negative on credit notes and for discounts), with its VAT
 * rate and amount as the VAT rule (`vat.ts`) gave them when the invoice was issued.
 */
export interface InvoicedCostLine {
  CostTypeCode: string;
  Description: string;
  /** Excluding VAT. */
  AmountOre: number;
  /** 25 (domestic) or 0 (exempt: transport to or from outside the VAT area). */
  VatPercent: number;
  VatOre: number;
}

/** The facts of a shipment at invoicing, frozen with the invoice so reports never change. */
export interface InvoicedShipmentFacts {
  SenderCustomerNr: string;
  SenderName: string | null;
  RecipientName: string | null;
  RecipientCustomerNr: string | null;
  DeliveryAddress: string | null;
  PickupZip: string | null;
  DeliveryZip: string | null;
  /** ISO alpha-2 countries of pickup and delivery; they decide the VAT rate. */
  PickupCountry: string;
  DeliveryCountry: string;
  ProductCode: string;
  ProductName: string;
  Services: { Code: string; Name: string }[];
  UnitCode: string;
  NumberOfParcels: number;
  NumberOfUnits: number;
  RealWeightG: number;
  VolumeCm3: number;
  ChargeableWeightKg: number;
  LoadMeters: number;
  SenderReference: string | null;
  DeliveryDate: string | null;
  Split: boolean;
}

/** One shipment on one invoice: the line of the invoice reports. */
export const invoiceShipments = pgTable(
  'invoice_shipments',
  {
    invoiceNr: integer('invoice_nr').notNull(),
    /** Position of the shipment on the invoice, from 1. */
    lineNr: integer('line_nr').notNull(),
    shipmentId: text('shipment_id').notNull(),
    isCredit: boolean('is_credit').notNull().default(false),
    /** Who pays and in which role: S sender, M recipient, F other. */
    payerCustomerNr: text('payer_customer_nr').notNull(),
    payerRole: text('payer_role').notNull(),
    pickupDate: date('pickup_date', { mode: 'string' }).notNull(),
    pickupTerminal: text('pickup_terminal'),
    deliveryTerminal: text('delivery_terminal'),
    facts: jsonb('facts').$type<InvoicedShipmentFacts>().notNull(),
    lines: jsonb('lines').$type<InvoicedCostLine[]>().notNull(),
    totalOre: bigint('total_ore', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.invoiceNr, t.lineNr] }),
    // A shipment is invoiced once; only credit notes may name it again.
    uniqueIndex('invoice_shipments_once_idx').on(t.shipmentId).where(sql`not ${t.isCredit}`),
    index('invoice_shipments_report_idx').on(t.payerCustomerNr, t.payerRole, t.pickupDate),
  ],
);

import type { PayerRole } from '../booking/rules';
import type { BookingService } from '../booking/service';
import type { CatalogService } from '../catalog/service';
import type { Config } from '../config';
import type { CustomerService } from '../customers/service';
import type { Db } from '../db/client';
import type { PostalCodeService } from '../reference-data/postal-codes';

/** What invoicing depends on, its terms and what a run answers; shared by its parts. */

/** Days from the invoice date to the due date. */
export const PAYMENT_TERMS_DAYS = 14;
/** Longest pickup-date interval of one invoice report. */
export const MAX_REPORT_DAYS = 366;

export const PAYER_ROLES: readonly PayerRole[] = ['S', 'M', 'F'];

export interface InvoicingDeps {
  db: Db;
  /**
   * The shipments to invoice (booking's read model, with pickups and deliveries), marking them
   * invoiced, and their deliveries since (the reports show the actual delivery date).
   */
  booking: Pick<BookingService, 'lockInvoiceable' | 'invoiceableOf' | 'markInvoiced' | 'deliveredOn'>;
  catalog: CatalogService;
  customers: CustomerService;
  postalCodes: PostalCodeService;
  /** NOK per EUR in force on a date, as a decimal string (null when no rate table is in force). */
  nokPerEur(date: string): Promise<string | null>;
  /** The carrier as its invoices name it: name, organisation number, address, bank account. */
  seller: Config['seller'];
  clock?: () => Date;
  /** A payer's shipments (or a credited invoice's lines) read at a time (`SHIPMENTS_PER_PASS`; tests make it small). */
  shipmentsPerPass?: number;
}

export interface IssuedInvoice {
  InvoiceNr: number;
  CustomerNr: string;
  Total: number;
}

export interface RunResult {
  RunId: number;
  Invoices: IssuedInvoice[];
}

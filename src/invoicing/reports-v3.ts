import { type Account, assertCanActFor } from '../auth/access';
import { mapPages, noPages } from '../lib/pages';
import type { InvoicingDeps } from './deps';
import { invoiceReference } from './format';
import {
  checkReportQuery,
  type InvoiceQuery,
  invoiceOfCustomer,
  type ReportQuery,
  reportPages,
  v2Record,
  withDeliveries,
} from './reports';
import type { InvoiceRow, InvoiceShipmentRow } from './store';

/**
 * The v3 invoice reports of the original service (CONTRACT §14): every field of the v2 record plus
 * the invoice's KID, references, loading metres, pallet places, payer role and units. Read from the
 * same issued invoices as v1/v2, so all three reconcile to the øre.
 */
function v3Record(line: InvoiceShipmentRow, invoice: InvoiceRow) {
  const f = line.facts;
  return {
    ...v2Record(line, invoice),
    GiroKid: invoice.kid,
    // Booking keeps no recipient reference; the order reference is the sender's, as on v1.
    RecipientReference: null,
    OrderReference: invoiceReference(f.SenderReference),
    LoadingMeters: f.LoadMeters,
    PalletPlaces: f.UnitCode === 'PL' ? f.NumberOfUnits : 0,
    PaymentCode: line.payerRole,
    UnitCode: f.UnitCode,
    Units: f.NumberOfUnits,
  };
}

export function createInvoiceReportsV3({ db, booking }: Pick<InvoicingDeps, 'db' | 'booking'>) {
  return {
    /** `GET /v3/InvoiceGetInvoiceReport` and `/v3/Invoice/GetInvoiceReport`: the v2 query, v3 records. */
    async reportV3(account: Account, q: ReportQuery) {
      const { customerNr, role, from, to } = checkReportQuery(q);
      assertCanActFor(account, customerNr);
      const pages = reportPages({ db, booking }, { customerNr, role, from, to });
      return mapPages(pages, ({ line, invoice }) => v3Record(line, invoice));
    },

    /**
     * `GET /v3/Invoice/GetInvoiceReportByInvoicenr`: the v3 records of one invoice of the customer. An
     * invoice that does not exist, or that the customer does not pay, answers an empty array (as the
     * invoice details do).
     */
    async reportV3ByInvoice(account: Account, q: InvoiceQuery) {
      const found = await invoiceOfCustomer(db, account, q);
      if (!found) return noPages<ReturnType<typeof v3Record>>();
      const { invoice, pages } = found;
      return (async function* () {
        for await (const page of pages) {
          const rows = await withDeliveries(
            booking,
            page.map((line) => ({ line })),
          );
          yield rows.map(({ line }) => v3Record(line, invoice));
        }
      })();
    },
  };
}

import { type Account, assertCanActFor } from '../auth/access';
import { Violations } from '../lib/errors';
import type { InvoicingDeps } from './deps';
import { krText, midnight } from './format';
import { customerNrField, interval } from './reports';
import { createInvoicingStore } from './store';

/** `Customernr`, `FromInvoiceDate` and `ToInvoiceDate` of the invoice list. */
export type InvoiceListQuery = { Customernr?: string; FromInvoiceDate?: string; ToInvoiceDate?: string };

export function checkInvoiceListQuery(q: InvoiceListQuery) {
  const v = new Violations();
  const customerNr = customerNrField('Customernr', q.Customernr, v);
  const { from, to } = interval('FromInvoiceDate', q.FromInvoiceDate, 'ToInvoiceDate', q.ToInvoiceDate, v);
  v.throwIfAny();
  return { customerNr, from, to };
}

/**
 * `GET /v1/Invoice/list` (extension): the invoices and credit notes a customer pays, issued in the
 * interval, one small record each, for finding an invoice without reading a period's report (which
 * for a busy customer is hundreds of megabytes).
 */
export function createInvoiceList({ db }: Pick<InvoicingDeps, 'db'>) {
  return {
    async invoiceList(account: Account, q: InvoiceListQuery) {
      const { customerNr, from, to } = checkInvoiceListQuery(q);
      assertCanActFor(account, customerNr);
      const rows = await createInvoicingStore(db).invoicesOf(customerNr, from, to);
      return rows.map(({ invoice, shipments }) => ({
        InvoiceNr: invoice.invoiceNr,
        // Dates as every answer writes them (CONTRACT §2), as the reports write the same invoice's.
        InvoiceDate: midnight(invoice.invoiceDate),
        DueDate: midnight(invoice.dueDate),
        Kid: invoice.kid,
        IsCreditNote: invoice.isCredit,
        CreditsInvoiceNr: invoice.creditsInvoiceNr,
        Shipments: shipments,
        TotalKr: krText(invoice.totalOre),
      }));
    },
  };
}

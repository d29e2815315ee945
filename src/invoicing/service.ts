import { invoicingRunSeconds, timed } from '../lib/domain-metrics';
import type { InvoicingDeps } from './deps';
import { createInvoiceList } from './invoice-list';
import { createInvoiceIssuer } from './issue';
import { createInvoiceReports } from './reports';
import { createInvoiceReportsV3 } from './reports-v3';

export type { InvoicingDeps, IssuedInvoice, RunResult } from './deps';
export { MAX_REPORT_DAYS, PAYER_ROLES, PAYMENT_TERMS_DAYS } from './deps';

export type InvoicingService = ReturnType<typeof createInvoicingService>;

/** Invoicing: runs and credit notes (`issue.ts`), reports and documents (`reports.ts`, `reports-v3.ts`). */
export function createInvoicingService(deps: InvoicingDeps) {
  const issuer = createInvoiceIssuer(deps);
  return {
    ...issuer,
    ...createInvoiceReports(deps),
    ...createInvoiceReportsV3(deps),
    ...createInvoiceList(deps),
    // Timed for /metrics (kolli_invoicing_run_duration_seconds).
    run: (...args: Parameters<typeof issuer.run>) =>
      timed(invoicingRunSeconds, 'run', () => issuer.run(...args)),
    creditNote: (...args: Parameters<typeof issuer.creditNote>) =>
      timed(invoicingRunSeconds, 'credit_note', () => issuer.creditNote(...args)),
  };
}

export type { ReportQuery } from './reports';

import type { InvoicingDeps } from './deps';
import { createInvoiceIssuer } from './issue';
import { createInvoiceReports } from './reports';
import { createInvoiceReportsV3 } from './reports-v3';

export type { InvoicingDeps, IssuedInvoice, RunResult } from './deps';
export { MAX_REPORT_DAYS, PAYER_ROLES, PAYMENT_TERMS_DAYS } from './deps';

export type InvoicingService = ReturnType<typeof createInvoicingService>;

/** Invoicing: runs and credit notes (`issue.ts`), reports and documents (`reports.ts`, `reports-v3.ts`). */
export function createInvoicingService(deps: InvoicingDeps) {
  return { ...createInvoiceIssuer(deps), ...createInvoiceReports(deps), ...createInvoiceReportsV3(deps) };
}

export type { ReportQuery } from './reports';

import { type JobLog, processName, type ScheduledJob, scheduleOncePerTick } from '../jobs/ticks';
import { addDays, osloDateTime } from '../schedule/calendar';
import type { InvoicingService } from './service';

/**
 * Runs invoicing on the `KOLLI_INVOICE_CRON` schedule (Europe/Oslo time), each time up to and
 * including yesterday, so a day is invoiced only once it is over. Every process of the fleet fires;
 * the run claims its tick inside its own transaction, so each tick gives one run across the fleet,
 * and a run whose process died mid-run (rolled back) is taken over by another process.
 */
export function scheduleInvoicing(
  invoicing: InvoicingService,
  expression: string,
  log: JobLog,
  clock: () => Date = () => new Date(),
  holder: string = processName(),
): ScheduledJob {
  return scheduleOncePerTick({
    job: 'invoicing',
    expression,
    holder,
    log,
    run: (_tick, claim) => invoicing.run({ ToDate: addDays(osloDateTime(clock()).date, -1) }, claim),
    describe: (r) => ({ runId: r.RunId, invoices: r.Invoices.length }),
  });
}

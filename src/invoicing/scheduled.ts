import { Cron } from 'croner';
import type { FastifyBaseLogger } from 'fastify';
import { OSLO } from '../lib/oslo-time';
import { addDays, osloDateTime } from '../schedule/calendar';
import type { InvoicingService } from './service';

/**
 * Runs invoicing on the `KOLLI_INVOICE_CRON` schedule (Europe/Oslo time), each time up to and
 * including yesterday, so a day is invoiced only once it is over. With several processes every one
 * fires: the runs queue on the invoice-number lock, and the later ones find nothing left to invoice.
 */
export function scheduleInvoicing(
  invoicing: InvoicingService,
  expression: string,
  log: FastifyBaseLogger,
  clock: () => Date = () => new Date(),
): { stop(): void } {
  const job = new Cron(expression, { timezone: OSLO, protect: true }, async () => {
    const toDate = addDays(osloDateTime(clock()).date, -1);
    try {
      const result = await invoicing.run({ ToDate: toDate });
      log.info({ runId: result.RunId, invoices: result.Invoices.length, toDate }, 'scheduled invoicing run');
    } catch (err) {
      log.error({ err, toDate }, 'scheduled invoicing run failed');
    }
  });
  return { stop: () => job.stop() };
}

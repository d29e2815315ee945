import { Counter, Histogram } from 'prom-client';

/**
 * Domain metrics a service records as it works (per process; Prometheus sums the fleet). They
 * belong to no registry here: the metrics plugin (src/http/metrics.ts) adds them to the app's.
 */

/** Bookings written, by the status they were stored in (Draft, ReadyForPublish, Published). */
export const bookingsTotal = new Counter({
  name: 'kolli_bookings_total',
  help: 'Shipments created or updated through booking, by the status written.',
  labelNames: ['status'] as const,
  registers: [],
});

/** Invoicing runs (scheduled or admin) and credit notes, by kind and outcome. */
export const invoicingRunSeconds = new Histogram({
  name: 'kolli_invoicing_run_duration_seconds',
  help: 'Duration of invoicing runs and credit notes.',
  labelNames: ['kind', 'outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  registers: [],
});

/** Times `work`, recording its duration under `kind` with outcome `ok` or `error`. */
export async function timed<T>(
  histogram: Histogram<'kind' | 'outcome'>,
  kind: string,
  work: () => Promise<T>,
) {
  const end = histogram.startTimer({ kind });
  try {
    const result = await work();
    end({ outcome: 'ok' });
    return result;
  } catch (e) {
    end({ outcome: 'error' });
    throw e;
  }
}

import { type JobLog, type ScheduledJob, scheduleOncePerTick } from '../jobs/ticks';
import type { Idempotency } from './idempotency';

/** Deletes `Idempotency-Key` records past their replay window, once an hour across the fleet. */
export function scheduleIdempotencyPruning(
  idempotency: Idempotency,
  log: JobLog,
  holder: string,
): ScheduledJob {
  return scheduleOncePerTick({
    job: 'idempotency-prune',
    // At 41 minutes past every hour (Europe/Oslo cron with seconds), away from the other jobs.
    expression: '0 41 * * * *',
    holder,
    log,
    run: (tick, claim) => idempotency.prune(tick, claim),
    describe: (deleted) => ({ deleted }),
  });
}

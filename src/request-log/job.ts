import { type JobLog, type ScheduledJob, scheduleOncePerTick } from '../jobs/ticks';
import type { RequestLogService } from './service';

/** Prunes the request log by age and by count per key, once per tick across the fleet. */
export function scheduleRequestLogPruning(
  requestLog: RequestLogService,
  log: JobLog,
  holder: string,
): ScheduledJob {
  return scheduleOncePerTick({
    job: 'request-log-prune',
    // Every ten minutes (Europe/Oslo cron with seconds).
    expression: '0 */10 * * * *',
    holder,
    log,
    run: (_tick, claim) => requestLog.prune(claim),
    describe: (r) => r,
  });
}

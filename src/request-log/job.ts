import { type JobLog, processName, type ScheduledJob, scheduleOncePerTick } from '../jobs/ticks';
import type { RequestLogService } from './service';

/** Every ten minutes (Europe/Oslo cron with seconds). */
export const PRUNE_EXPRESSION = '0 */10 * * * *';

/** Prunes the request log by age and by count per key, once per tick across the fleet. */
export function scheduleRequestLogPruning(
  requestLog: RequestLogService,
  log: JobLog,
  holder: string = processName(),
  expression: string = PRUNE_EXPRESSION,
): ScheduledJob {
  return scheduleOncePerTick({
    job: 'request-log-prune',
    expression,
    holder,
    log,
    run: (_tick, claim) => requestLog.prune(claim),
    describe: (r) => r,
  });
}

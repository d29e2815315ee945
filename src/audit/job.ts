import { type JobLog, type ScheduledJob, scheduleOncePerTick } from '../jobs/ticks';
import type { AuditService } from './service';

/** Prunes the audit trail past its retention, once a night across the fleet. */
export function scheduleAuditPruning(audit: AuditService, log: JobLog, holder: string): ScheduledJob {
  return scheduleOncePerTick({
    job: 'admin-audit-prune',
    // 03:17 every night (Europe/Oslo cron with seconds), away from the hour's other jobs.
    expression: '0 17 3 * * *',
    holder,
    log,
    run: (_tick, claim) => audit.prune(claim),
    describe: (r) => r,
  });
}

import { pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * One row per scheduled job and tick that ran, written in the same transaction as the job's work.
 * The primary key makes the fleet run each tick once: every host tries the insert, the first one's
 * transaction holds the row, the others wait on it and find it taken once it commits, or take the
 * tick over when it rolls back (the holder died mid-run).
 */
export const jobTicks = pgTable(
  'job_ticks',
  {
    job: text('job').notNull(),
    /** The scheduled time of the tick (the same on every host), not when a host got to it. */
    tick: timestamp('tick', { withTimezone: true }).notNull(),
    /** The process that ran it (host name and process id). */
    holder: text('holder').notNull(),
    /** Transaction start of the run: equal to `now()` of everything the run wrote. */
    ranAt: timestamp('ran_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.job, t.tick] })],
);

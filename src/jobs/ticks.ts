import { hostname } from 'node:os';
import { Cron } from 'croner';
import type { Db, DbOrTx, Tx } from '../db/client';
import { OSLO } from '../lib/oslo-time';
import { deleteTicksBefore, insertTick } from './store';

/** The few logger methods a scheduled job uses (pino's and Fastify's loggers fit). */
export interface JobLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** This process as a tick holder: host name and process id (and what it listens on, when given). */
export const processName = (listen?: string) =>
  [hostname(), listen, process.pid].filter((p) => p !== undefined).join('/');

/** Thrown inside a job's transaction when another process has run (or is running) the same tick. */
export class TickTaken extends Error {
  constructor(
    readonly job: string,
    readonly tick: Date,
  ) {
    super(`${job} at ${tick.toISOString()} ran elsewhere`);
  }
}

/**
 * The tick a firing belongs to: its scheduled time, the same on every host however late its event
 * loop got to it — the last occurrence up to now, or half a second ahead, for a host whose timer
 * fired a moment early.
 */
export const scheduledTick = (cron: Cron, firedAt: Date): Date =>
  cron.previousRuns(1, new Date(firedAt.getTime() + 500))[0] ?? firedAt;

/** How long a job's ticks stay recorded (which host ran which tick, and when). */
export const TICKS_KEPT_DAYS = 30;

/**
 * Claims a tick inside the job's own transaction: inserts its row, or throws `TickTaken` when the
 * row exists. While another transaction holds an uncommitted row for the tick, the insert waits for
 * it: when that one commits, the tick is taken; when it rolls back (its process died mid-run, and
 * PostgreSQL ended its session), this one gets the tick and runs it. So the work of a tick commits
 * exactly once across the fleet. The claimant then forgets the job's ticks older than
 * `TICKS_KEPT_DAYS` (no host claims a tick that old again), so the table stays a month deep.
 */
export async function claimTick(tx: DbOrTx, job: string, tick: Date, holder: string): Promise<void> {
  if (!(await insertTick(tx, job, tick, holder))) throw new TickTaken(job, tick);
  await deleteTicksBefore(tx, job, new Date(tick.getTime() - TICKS_KEPT_DAYS * 86_400_000));
}

/**
 * A job's deletes in batches: `step` deletes one batch and says whether more may be left. The first
 * runs after `claim` in the tick's own transaction (so a tick prunes once across the fleet), the
 * rest a commit each, so a backlog of any size goes in statements that each stay short, well inside
 * the database's statement timeout.
 */
export async function claimThenBatches(
  db: Db,
  claim: ((tx: Tx) => Promise<void>) | undefined,
  step: (using: DbOrTx) => Promise<boolean>,
): Promise<void> {
  let more = await db.transaction(async (tx) => {
    await claim?.(tx);
    return step(tx);
  });
  while (more) more = await step(db);
}

export interface ScheduledJob {
  /** Stops firing and waits for a run in progress to finish. */
  stop(): Promise<void>;
}

export interface OncePerTickOptions<T> {
  job: string;
  /** Cron expression, Europe/Oslo time (seconds allowed: six fields). */
  expression: string;
  /** This process, as recorded on the ticks it runs. */
  holder: string;
  log: JobLog;
  /**
   * The job's work. It must call `claim` first inside its transaction, so the work and the tick's
   * row commit together.
   */
  run: (tick: Date, claim: (tx: Tx) => Promise<void>) => Promise<T>;
  /** What to log of a finished run. */
  describe?: (result: T) => object;
}

/**
 * Runs a job on a cron schedule in every process of the fleet, and its work once per tick: every
 * process fires, the first to claim the tick runs it, the others find it taken (or take it over
 * when the first died before committing). `protect` keeps one process from overlapping itself.
 */
export function scheduleOncePerTick<T>(options: OncePerTickOptions<T>): ScheduledJob {
  const { job, holder, log } = options;
  let running: Promise<void> | null = null;
  const cron = new Cron(options.expression, { timezone: OSLO, protect: true }, (self: Cron) => {
    const tick = scheduledTick(self, new Date());
    const task = options
      .run(tick, (tx) => claimTick(tx, job, tick, holder))
      .then(
        (result) => log.info({ job, tick, ...options.describe?.(result) }, 'scheduled job ran'),
        (err: unknown) => {
          if (err instanceof TickTaken) return;
          log.error({ err, job, tick }, 'scheduled job failed');
        },
      )
      .finally(() => {
        running = null;
      });
    running = task;
    return task;
  });
  return {
    async stop() {
      cron.stop();
      await running;
    },
  };
}

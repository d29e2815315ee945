import { and, eq, lt } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { jobTicks } from './tables';

/** The jobs' one table: a row per job and tick that ran (`ticks.ts` says how it is used). */

/** Inserts the tick's row; false when it exists (waiting, as an insert does, for one not yet committed). */
export async function insertTick(tx: DbOrTx, job: string, tick: Date, holder: string): Promise<boolean> {
  const rows = await tx
    .insert(jobTicks)
    .values({ job, tick, holder })
    .onConflictDoNothing()
    .returning({ tick: jobTicks.tick });
  return rows.length > 0;
}

/** Deletes the job's ticks scheduled before `before`. */
export async function deleteTicksBefore(tx: DbOrTx, job: string, before: Date): Promise<void> {
  await tx.delete(jobTicks).where(and(eq(jobTicks.job, job), lt(jobTicks.tick, before)));
}

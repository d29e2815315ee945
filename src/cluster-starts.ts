// How the cluster primary (server.ts) tells a worker process that cannot start from one that ran and died.

/** A worker that exits this soon after it began listening failed to start (its metrics port taken, say). */
export const WORKER_QUICK_FAIL_MS = 10_000;

/** A cluster worker's place, when it began listening (null: not yet), and the failed starts before it. */
export interface WorkerPlace {
  index: number;
  listenedAt: number | null;
  quickFails: number;
}

/**
 * Failed starts in a row, this exit included (0: it ran, and the count starts again). A worker that
 * exits before it listened failed to start however long it tried: counted from its fork, a start
 * slower than 10 s (a loaded host, a slow database) was never counted, and the primary forked it
 * forever. One that exits within 10 s of listening failed to start too.
 */
export const failedStartsInARow = (place: WorkerPlace, now: number): number =>
  place.listenedAt === null || now - place.listenedAt < WORKER_QUICK_FAIL_MS ? place.quickFails + 1 : 0;

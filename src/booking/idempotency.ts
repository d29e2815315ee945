import { createHash, randomUUID } from 'node:crypto';
import type { Db, Tx } from '../db/client';
import { claimThenBatches } from '../jobs/ticks';
import { DomainError } from '../lib/errors';
import { createIdempotencyStore } from './store/idempotency';

/** How long a key's first answer is replayed. */
export const REPLAY_HOURS = 24;
/** Records the prune deletes a statement, so a backlog never runs one statement long. */
const PRUNE_BATCH = 10_000;

export interface StoredResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** A stable hash of a request body: the same JSON value hashes the same whatever its key order. */
export function requestHash(value: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash('sha256')
    .update(JSON.stringify(canonical(value)))
    .digest('hex');
}

/**
 * `Idempotency-Key` for booking (CONTRACT §5): the first request with a key claims it; its answer is
 * stored in the same transaction as the booking, so a retry after a crash either finds the answer or
 * finds nothing booked. The same key with another body is 422; while the first is still running, 409.
 * A claim whose request died without committing is taken over after `leaseMs`.
 */
const lostClaim = (key: string) =>
  new DomainError(
    'conflict',
    'idempotency_in_flight',
    `Another request with Idempotency-Key '${key}' took over while this one was still running.`,
  );

export function createIdempotency({ db, leaseMs }: { db: Db; leaseMs: number }) {
  const store = createIdempotencyStore(db);
  return {
    /**
     * Runs `execute` once per (API key, key). `execute` receives `remember`, to call inside its own
     * transaction with the answer it is about to commit.
     */
    async run(
      apiKeyId: string,
      key: string,
      hash: string,
      execute: (remember: (tx: Tx, response: StoredResponse) => Promise<void>) => Promise<StoredResponse>,
    ): Promise<StoredResponse & { replayed: boolean }> {
      for (let attempt = 0; attempt < 3; attempt++) {
        const token = randomUUID();
        if (!(await store.claim(apiKeyId, key, hash, token))) {
          const row = await store.get(apiKeyId, key);
          if (!row) continue; // released in between: claim again
          const age = row.ageMs;
          if (age > REPLAY_HOURS * 3_600_000) {
            await store.removeExpired(apiKeyId, key, row.claimToken);
            continue;
          }
          if (row.requestHash !== hash) {
            throw new DomainError(
              'unprocessable',
              'idempotency_key_reused',
              `Idempotency-Key '${key}' was used with a different request body.`,
            );
          }
          if (row.responseStatus === null) {
            if (age < leaseMs) {
              // Answered, or taken over, by the end of the lease at the latest.
              const seconds = Math.max(1, Math.ceil((leaseMs - age) / 1000));
              throw new DomainError(
                'conflict',
                'idempotency_in_flight',
                `A request with Idempotency-Key '${key}' is still being processed; retry in ${seconds} s.`,
                seconds,
              );
            }
            // The first request died without an answer (and booked nothing): take the claim over, unless
            // another retry took it first.
            if (!(await store.takeOver(apiKeyId, key, row.claimToken, token))) continue;
          } else {
            return {
              status: row.responseStatus,
              body: row.responseBody,
              headers: row.responseHeaders ?? {},
              replayed: true,
            };
          }
        }
        try {
          const response = await execute(async (tx, r) => {
            // Our claim was taken over (we outlived the lease): roll the booking back, the other runs it.
            if (!(await createIdempotencyStore(tx).answer(apiKeyId, key, token, r))) throw lostClaim(key);
          });
          return { ...response, replayed: false };
        } catch (e) {
          // A rejected request books nothing; free the key (if still ours) so a corrected retry can use it.
          await store.release(apiKeyId, key, token);
          throw e;
        }
      }
      throw new DomainError(
        'conflict',
        'idempotency_in_flight',
        `Idempotency-Key '${key}' is busy; try again.`,
      );
    },

    /**
     * Deletes the records past their replay window at `now` (a key is free again after it anyway),
     * so the table holds about a day of keyed bookings, not every one ever made, `batch` a statement
     * (`claimThenBatches`; `claim` is the prune job's tick). The number deleted.
     */
    async prune(now: Date, claim?: (tx: Tx) => Promise<void>, batch = PRUNE_BATCH): Promise<number> {
      const before = new Date(now.getTime() - REPLAY_HOURS * 3_600_000);
      let deleted = 0;
      await claimThenBatches(db, claim, async (using) => {
        const n = await createIdempotencyStore(using).deleteCreatedBefore(before, batch);
        deleted += n;
        return n === batch;
      });
      return deleted;
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;

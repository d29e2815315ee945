import type { Db } from '../db/client';
import type { SendOptions, SendResult } from './send';
import { signatureHeaders } from './signing';
import {
  type Claimed,
  clearFailing,
  deliveryExists,
  disableRegistration,
  finishAttempt,
  holdRegistrations,
  insertAttempt,
  markFailing,
} from './store/deliveries';
import type { createGuardedAgents } from './url-guard';

export const USER_AGENT = 'Kolli-Webhooks/1.0';

export interface AttemptOutcome {
  deliveryId: string;
  attempt: number;
  succeeded: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  nextAttemptAt: Date | null;
}

/** What sending and recording an attempt depends on (the engine's resolved options). */
export interface AttemptSettings {
  db: Db;
  clock: () => Date;
  allowPrivate: boolean;
  schedule: readonly number[];
  jitter: number;
  random: () => number;
  timeoutMs: number;
  disableAfterMs: number;
  maxRetryAfterMs: number;
  agents: ReturnType<typeof createGuardedAgents>;
  send: (options: SendOptions) => Promise<SendResult>;
}

/** Sending one claimed attempt, recording its outcome, and the retry schedule between attempts. */
export function createAttempts(s: AttemptSettings) {
  const { db, clock } = s;

  /** The wait before the retry after failed attempt `attempt`, or null when none follows. */
  function retryDelay(attempt: number, retryAfterMs: number | null): number | null {
    const base = s.schedule[attempt - 1];
    if (base === undefined) return null;
    const spread = base * (1 + s.jitter * (2 * s.random() - 1));
    return Math.round(Math.max(spread, Math.min(retryAfterMs ?? 0, s.maxRetryAfterMs)));
  }

  /** Sends one claimed attempt and records its outcome. Never throws for target failures. */
  async function attempt(c: Claimed): Promise<AttemptOutcome> {
    const startedAt = clock();
    let result: SendResult;
    try {
      const custom = c.customHeaders ? (JSON.parse(c.customHeaders) as Record<string, string>) : {};
      const headers = {
        ...custom,
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        ...signatureHeaders(c.secret, c.id, startedAt, c.body),
      };
      result =
        !s.allowPrivate && c.url.startsWith('http:')
          ? failure('http targets need KOLLI_WEBHOOK_ALLOW_PRIVATE=1')
          : await s.send({
              url: c.url,
              headers,
              body: c.body,
              timeoutMs: s.timeoutMs,
              agents: s.agents,
              now: clock,
            });
    } catch (err) {
      // A registration stored before a rule tightened (a header Node refuses, a bad secret): record
      // the failure instead of losing the delivery or stopping the worker.
      result = failure(err instanceof Error ? err.message : 'could not send');
    }
    return record(c, startedAt, result);
  }

  async function record(c: Claimed, startedAt: Date, result: SendResult): Promise<AttemptOutcome> {
    const finishedAt = clock();
    const status = result.statusCode;
    const succeeded = status !== null && status >= 200 && status < 300;
    const gone = status === 410;
    const delay = succeeded || gone ? null : retryDelay(c.attempt, result.retryAfterMs);
    const nextAttemptAt = delay === null ? null : new Date(finishedAt.getTime() + delay);
    const error = result.error ?? (succeeded ? null : `HTTP ${status}`);
    // The retry the attempt was recorded with: none when it was not recorded, or when it ended
    // its registration (410, or failing too long), which gives up the delivery with it.
    const retryAt = await db.transaction(async (tx) => {
      // The registration first, as its delete takes it, then the delivery: a delete meanwhile
      // waits for this, or has taken the delivery with it (nothing to record).
      if (!(await holdRegistrations(tx, [c.webhookId])).has(c.webhookId)) return null;
      const owned = await finishAttempt(tx, c, {
        status: nextAttemptAt ? 'pending' : succeeded ? 'succeeded' : 'failed',
        nextAttemptAt,
        statusCode: status,
        error,
        completedAt: nextAttemptAt ? null : finishedAt,
      });
      // Not owned: the registration was deleted meanwhile (nothing to record), or the lease was lost.
      if (!owned && !(await deliveryExists(tx, c.id))) return null;
      let disabledFor: string | null = null;
      if (owned && gone) disabledFor = 'The target answered 410 Gone.';
      else if (owned && !succeeded) {
        const failingSince = await markFailing(tx, c.webhookId, startedAt);
        if (failingSince && finishedAt.getTime() - failingSince.getTime() >= s.disableAfterMs) {
          disabledFor = 'Deliveries failed for 5 days.';
        }
      }
      const retry = owned && !disabledFor ? nextAttemptAt : null;
      await insertAttempt(tx, {
        deliveryId: c.id,
        webhookId: c.webhookId,
        attempt: c.attempt,
        startedAt,
        durationMs: result.durationMs,
        statusCode: status,
        error: result.error,
        responseBody: result.responseBody,
        succeeded,
        nextAttemptAt: retry,
      });
      if (owned && succeeded) await clearFailing(tx, c.webhookId);
      if (disabledFor) await disableRegistration(tx, c.webhookId, finishedAt, disabledFor);
      return retry;
    });
    return {
      deliveryId: c.id,
      attempt: c.attempt,
      succeeded,
      statusCode: status,
      error,
      durationMs: result.durationMs,
      nextAttemptAt: retryAt,
    };
  }

  return { retryDelay, attempt };
}

const failure = (error: string): SendResult => ({
  statusCode: null,
  error,
  responseBody: null,
  retryAfterMs: null,
  durationMs: 0,
});

import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client';
import { createAttempts } from './attempt';
import { fanOut } from './fan-out';
import { analyze, sweep } from './retention';
import { send as defaultSend, type SendOptions, type SendResult } from './send';
import { type Claimed, claimDue, insertTestDelivery } from './store/deliveries';
import { createGuardedAgents } from './url-guard';

export type { AttemptOutcome } from './attempt';
export { USER_AGENT } from './attempt';
export type { Claimed } from './store/deliveries';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Delays before retries 1..7 (Svix-like). Without jitter the last attempt comes 27 h 35 min after the
 * first; with the default ±10 % jitter never earlier than 24.8 h, so failures are retried for at
 * least 24 h (CONTRACT §10).
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

/** Spread of each retry delay (±10 %), so targets that fail together are not retried together. */
export const DEFAULT_JITTER = 0.1;

/** Bound on one attempt, connection to last byte read. */
export const DEFAULT_TIMEOUT_MS = 10 * SECOND;

/**
 * Attempts in flight at once per customer, across the fleet: a customer's many slow registrations
 * hold this many slots and no more.
 */
export const FAIR_SHARE = 8;

export interface DeliveryOptions {
  db: Db;
  /** KOLLI_WEBHOOK_ALLOW_PRIVATE: private and loopback targets are reachable. */
  allowPrivate: boolean;
  clock?: () => Date;
  /** Delays before each retry; one attempt more than its length is made in all. */
  retryScheduleMs?: readonly number[];
  /** Spread of each delay, as a fraction (0.1 = ±10 %). */
  jitter?: number;
  random?: () => number;
  /** How long a claim is owned; after it another worker may claim the delivery again. */
  leaseMs?: number;
  /** Bound on one attempt, connection to last byte read. */
  timeoutMs?: number;
  /** A registration whose attempts have failed this long without a success is disabled. */
  disableAfterMs?: number;
  /** Longest wait a target's Retry-After can ask for. */
  maxRetryAfterMs?: number;
  /** Identifies this process's claims. */
  owner?: string;
  /** Attempts in flight at once per customer, across the fleet. */
  share?: number;
  /** The HTTP client (tests replace it rarely; the default checks addresses at connect time). */
  send?: (options: SendOptions) => Promise<SendResult>;
}

export type DeliveryEngine = ReturnType<typeof createDeliveryEngine>;

/**
 * Fan-out, claiming, sending and recording of webhook deliveries; the worker loop drives it.
 * The work itself lives beside this file: `fan-out.ts`, `attempt.ts`, `retention.ts`, and the
 * queries in `delivery-store.ts`.
 */
export function createDeliveryEngine(options: DeliveryOptions) {
  const db = options.db;
  const clock = options.clock ?? (() => new Date());
  // An attempt ends within its send timeout; the lease adds room to record it (a busy pool, a
  // stalled loop, hosts' clocks apart), past which another host would send it again. Any longer only
  // keeps a dead process's registrations waiting (one attempt in flight each) before one takes over.
  const leaseMs = options.leaseMs ?? (options.timeoutMs ?? DEFAULT_TIMEOUT_MS) + 20 * SECOND;
  const owner = options.owner ?? `worker:${randomUUID()}`;
  const share = options.share ?? FAIR_SHARE;
  const agents = createGuardedAgents(options.allowPrivate);
  const { retryDelay, attempt } = createAttempts({
    db,
    clock,
    allowPrivate: options.allowPrivate,
    schedule: options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS,
    jitter: options.jitter ?? DEFAULT_JITTER,
    random: options.random ?? Math.random,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    disableAfterMs: options.disableAfterMs ?? 5 * DAY,
    maxRetryAfterMs: options.maxRetryAfterMs ?? DAY,
    agents,
    send: options.send ?? defaultSend,
  });

  /**
   * Claims up to `limit` due deliveries (see `claimDue`): at most one per registration, none of a
   * registration with an attempt in flight, here (`busy`) or anywhere, and in each shipment's event
   * order. A claim is a lease: if this process dies, the delivery is due again once it has passed.
   */
  async function claim(limit: number, busy: { webhookIds?: Iterable<string> } = {}): Promise<Claimed[]> {
    if (limit <= 0) return [];
    return claimDue(db, {
      limit,
      at: clock(),
      busyIds: [...(busy.webhookIds ?? [])],
      share,
      owner,
      leaseUntil: () => new Date(clock().getTime() + leaseMs),
    });
  }

  /**
   * Creates a `webhook.test` delivery already claimed by the caller, to attempt at once; null when
   * the claim's rules leave no room for it now (an attempt of the registration in flight, or its
   * customer's share in use).
   */
  async function claimTest(w: {
    id: string;
    url: string;
    secret: string;
    customHeaders: string | null;
  }): Promise<Claimed | 'busy' | 'gone'> {
    const now = clock();
    const id = randomUUID();
    const body = JSON.stringify({
      type: 'webhook.test',
      timestamp: now.toISOString(),
      data: { WebhookId: w.id, Message: 'A test message from Kolli.' },
    });
    const leaseOwner = `api:${randomUUID()}`;
    const inserted = await insertTestDelivery(
      db,
      {
        id,
        webhookId: w.id,
        type: 'webhook.test',
        body,
        attempts: 1,
        nextAttemptAt: now,
        leaseUntil: new Date(now.getTime() + leaseMs),
        leaseOwner,
      },
      share,
    );
    if (inserted !== 'inserted') return inserted;
    return {
      id,
      webhookId: w.id,
      type: 'webhook.test',
      body,
      attempt: 1,
      url: w.url,
      secret: w.secret,
      customHeaders: w.customHeaders,
      leaseOwner,
    };
  }

  return {
    owner,
    /** See `fan-out.ts`. */
    fanOut: (batchSize = 200): Promise<number> => fanOut(db, clock(), batchSize),
    claim,
    attempt,
    retryDelay,
    /** See `retention.ts`. */
    sweep: (retainMs?: number | null): Promise<void> => sweep(db, clock(), retainMs),
    analyze: (): Promise<void> => analyze(db),
    claimTest,
    /** Closes the pooled connections to targets. */
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

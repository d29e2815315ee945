import type { Claimed, DeliveryEngine } from './delivery';

/** The few logger methods the worker uses (pino's and Fastify's loggers fit). */
export interface WorkerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface WorkerOptions {
  engine: DeliveryEngine;
  /** Attempts in flight at once in this process. */
  concurrency?: number;
  /** Wait between rounds when there is nothing to do. */
  pollMs?: number;
  /** How often pending deliveries of expired or disabled registrations are given up. */
  sweepEveryMs?: number;
  /** Delivery history and fanned-out outbox rows older than this are deleted; null keeps all. */
  retentionMs?: number | null;
  /**
   * Embedded PGlite has no autovacuum: gather the delivery tables' planner statistics after every
   * `ANALYZE_EVERY_EVENTS` events fanned out (the hourly vacuum of the whole database is
   * jobs/embedded-vacuum.ts).
   */
  analyze?: boolean;
  log?: WorkerLog;
}

export interface WebhookWorker {
  /** Runs a round now instead of after the poll interval (e.g. after an event was written). */
  kick(): void;
  /**
   * Stops claiming and waits for the attempts in flight (each bounded by the send timeout), at most
   * `graceMs`; an attempt still running after it is claimed again elsewhere once its lease passes.
   */
  stop(graceMs?: number): Promise<void>;
  /** Attempts in flight in this process. */
  readonly inFlight: number;
}

const FANOUT_BATCH = 200;
const HOURLY_MS = 60 * 60 * 1000;
/** On embedded PGlite, the delivery tables' statistics are gathered again after this many events fanned out. */
const ANALYZE_EVERY_EVENTS = 100;

const silent: WorkerLog = { info() {}, warn() {}, error() {} };

/**
 * The delivery loop: turns outbox events into deliveries, claims due deliveries up to the free
 * slots and sends each in its own promise, so a slow or hanging target holds one slot (and only its
 * own registration, which has one attempt in flight at a time) while other targets keep flowing.
 * Any number of these loops, in any number of processes, share the work through the database.
 */
export function startWebhookWorker(options: WorkerOptions): WebhookWorker {
  const engine = options.engine;
  const concurrency = options.concurrency ?? 32;
  const pollMs = options.pollMs ?? 1000;
  const sweepEveryMs = options.sweepEveryMs ?? 60_000;
  const retentionMs = options.retentionMs ?? null;
  const log = options.log ?? silent;
  const analyze = options.analyze ?? false;

  /** Attempts in flight, by delivery id, with their registration. */
  const running = new Map<string, { webhookId: string; task: Promise<void> }>();
  let stopping = false;
  let wake: (() => void) | null = null;
  let kicked = false;
  let lastSweep = 0;
  // The first retention pass comes 5 minutes after start, then hourly.
  let lastHourly = Date.now() - HOURLY_MS + 5 * 60_000;
  let failures = 0;

  let lastFanOut = 0;
  let fanOutAsked = false;
  /** Events fanned out since the delivery tables' statistics were last gathered. */
  let fannedOut = 0;
  const wakeUp = () => {
    kicked = true;
    wake?.();
  };
  /** From outside: new events may be waiting, so the next round fans out too. */
  const kick = () => {
    fanOutAsked = true;
    wakeUp();
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (kicked || stopping) {
        resolve();
        return;
      }
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  function launch(c: Claimed) {
    const task = engine
      .attempt(c)
      .then((outcome) => {
        if (!outcome.succeeded) {
          log.info(
            { webhookId: c.webhookId, deliveryId: c.id, attempt: c.attempt, statusCode: outcome.statusCode },
            `webhook delivery failed: ${outcome.error ?? 'no answer'}`,
          );
        }
      })
      .catch((err: unknown) => {
        // Recording failed (database away): the lease runs out and the delivery is claimed again.
        log.error({ err, deliveryId: c.id }, 'recording a webhook attempt failed');
      })
      .finally(() => {
        running.delete(c.id);
        // A slot is free: claim again now (the fan-out keeps its own pace).
        wakeUp();
      });
    running.set(c.id, { webhookId: c.webhookId, task });
  }

  async function round(): Promise<void> {
    const now = Date.now();
    if (fanOutAsked || now - lastFanOut >= pollMs) {
      fanOutAsked = false;
      lastFanOut = now;
      for (let n = FANOUT_BATCH; n >= FANOUT_BATCH && !stopping; ) {
        // A full batch: more are waiting.
        n = await engine.fanOut(FANOUT_BATCH);
        fannedOut += n;
      }
      if (analyze && fannedOut >= ANALYZE_EVERY_EVENTS) {
        await engine.analyze();
        fannedOut = 0;
      }
    }
    if (now - lastSweep >= sweepEveryMs) {
      const hourly = now - lastHourly >= HOURLY_MS;
      await engine.sweep(hourly ? retentionMs : null);
      lastSweep = now;
      if (hourly) lastHourly = now;
    }
    const free = concurrency - running.size;
    if (free <= 0 || stopping) return;
    const busy = new Set([...running.values()].map((r) => r.webhookId));
    for (const c of await engine.claim(free, { webhookIds: busy })) launch(c);
  }

  const loop = (async () => {
    while (!stopping) {
      kicked = false;
      try {
        await round();
        // The outage's warning had its line; so has its end, or a reader could not tell it ended.
        if (failures > 0) log.info({ failedRounds: failures }, 'webhook worker rounds succeed again');
        failures = 0;
      } catch (err) {
        failures += 1;
        // The database may be restarting: back off a little, up to 30 s, and try again.
        if (failures === 1 || failures % 30 === 0) log.warn({ err }, 'webhook worker round failed');
        await sleep(Math.min(30_000, pollMs * 2 ** Math.min(failures, 5)));
        continue;
      }
      await sleep(pollMs);
    }
  })();

  return {
    kick,
    get inFlight() {
      return running.size;
    },
    async stop(graceMs = Number.POSITIVE_INFINITY) {
      stopping = true;
      wakeUp();
      await loop;
      let timer: NodeJS.Timeout | undefined;
      const grace = Number.isFinite(graceMs)
        ? new Promise<void>((resolve) => {
            timer = setTimeout(resolve, graceMs);
          })
        : new Promise<void>(() => {});
      await Promise.race([Promise.allSettled([...running.values()].map((r) => r.task)), grace]);
      clearTimeout(timer);
    },
  };
}

/** The worker's settings from the configuration (`KOLLI_WEBHOOK_CONCURRENCY`, `KOLLI_WEBHOOK_RETENTION_DAYS`). */
export const workerSettings = (
  config: { webhookConcurrency: number; webhookRetentionDays: number },
  database: { kind: 'pglite' | 'postgres' },
) => ({
  concurrency: config.webhookConcurrency,
  retentionMs: config.webhookRetentionDays * 24 * 60 * 60 * 1000,
  analyze: database.kind === 'pglite',
});

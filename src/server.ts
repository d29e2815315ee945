import cluster from 'node:cluster';
import closeWithGrace from 'close-with-grace';
import { announceSandbox } from './admin/sandbox';
import { buildApp, createServices, type Services } from './app';
import { scheduleAuditPruning } from './audit/job';
import { scheduleIdempotencyPruning } from './booking/job';
import { failedStartsInARow, type WorkerPlace } from './cluster-starts';
import { type Config, isProduction, loadConfig, sandboxDefaultsIn, startProblem } from './config';
import type { Database } from './db/client';
import { scheduleInvoicing } from './invoicing/scheduled';
import { scheduleEmbeddedVacuum } from './jobs/embedded-vacuum';
import { processName } from './jobs/ticks';
import { openConfiguredDatabase, prepareDatabase } from './prepare';
import { scheduleRequestLogPruning } from './request-log/job';
import { startWebhookWorker, workerSettings } from './webhooks/worker';

/** Stops a production start that nobody could administer, before any other work (`startProblem`). */
async function refuseWithoutAdministrator(config: Config, database: Database, services: Services) {
  const problem = await startProblem(config, async () => {
    await database.migrate();
    return services.auth.hasStoredAdminKey();
  });
  if (problem) {
    await database.close();
    throw new Error(problem);
  }
}

/** One process serving HTTP. `prepared` is false in cluster workers, whose primary prepared the database. */
async function serve(config: Config, prepare: boolean): Promise<void> {
  const database = await openConfiguredDatabase(config);
  const services = createServices(database, config);
  if (prepare) {
    await refuseWithoutAdministrator(config, database, services);
    const { sandbox } = await prepareDatabase(database, config, services);
    if (sandbox) announceSandbox(sandbox, config.port);
  }
  let draining = false;
  const app = await buildApp({ config, database, services, draining: () => draining });
  // Who holds a scheduled job's tick in the fleet (jobs/ticks.ts).
  const holder = processName(`${config.host}:${config.port}`);
  // Webhook deliveries run in every server process unless KOLLI_WEBHOOK_WORKER=0 (then `npm run worker`).
  const worker = config.webhookWorker
    ? startWebhookWorker({
        engine: services.webhooks.engine,
        ...workerSettings(config, database),
        log: app.log,
      })
    : null;
  const invoicing = config.invoiceCron
    ? scheduleInvoicing(services.invoicing, config.invoiceCron, app.log, undefined, holder)
    : null;
  // Also when recording is off, so rows of an earlier setting age out.
  const pruning = scheduleRequestLogPruning(services.requestLog, app.log, holder);
  const auditPruning = scheduleAuditPruning(services.audit, app.log, holder);
  const idempotencyPruning = scheduleIdempotencyPruning(services.idempotency, app.log, holder);
  const vacuum = scheduleEmbeddedVacuum(database, app.log, holder);
  // A cluster worker is stopped by its primary (`SHUTDOWN`, below) and by the signal its process
  // group gets, such as systemd's SIGTERM to the whole group: the two are one request to stop, and
  // neither is a second signal that forces an exit (forcing is the primary's, on its own second one).
  const inCluster = cluster.isWorker;
  let asked: string | undefined;
  const grace = closeWithGrace(
    { delay: config.shutdownDrainMs + 20_000, ...(inCluster && { skip: ['SIGTERM', 'SIGINT'] }) },
    async ({ err, signal }) => {
      if (err) app.log.error({ err }, 'shutting down after an error');
      else app.log.info({ signal: signal ?? asked }, 'shutting down');
      // /readyz answers 503 first, so the balancer takes this host out while it still serves; no new
      // ticks (a run in progress commits or rolls back); no new webhook claims, and the attempts in
      // flight (10 s send timeout) finish and are recorded.
      draining = true;
      await Promise.all([
        invoicing?.stop(),
        pruning.stop(),
        auditPruning.stop(),
        idempotencyPruning.stop(),
        vacuum?.stop(),
        worker?.stop(11_000),
        new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs)),
      ]);
      await app.close(); // stops accepting, lets in-flight requests finish
      await database.close();
    },
  );
  if (inCluster) {
    const stop = (why: string) => {
      if (asked) return;
      asked = why;
      void grace.close();
    };
    process.on('message', (message) => message === SHUTDOWN && stop('primary'));
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => stop(signal));
  }
  await app.listen({ port: config.port, host: config.host });
  // The pid is in every line already (pino's base fields): a second one made the line's JSON hold the key twice.
  app.log.info({ mode: config.nodeEnv, database: config.databaseUrl ? 'postgresql' : 'embedded' }, 'started');
  if (!config.databaseUrl && !config.webhookWorker) {
    // Embedded, `npm run worker` cannot run: nothing delivers a webhook (a benchmark may want that).
    app.log.warn('KOLLI_WEBHOOK_WORKER=0 on the embedded database: no webhook will be delivered');
  }
  const defaults = isProduction(config) ? sandboxDefaultsIn() : [];
  if (defaults.length > 0) {
    app.log.warn(
      { unset: defaults },
      `production with the sandbox's made-up carrier: set ${defaults.join(', ')} (parcel numbers and invoices use them)`,
    );
  }
}

/** The primary's message to a cluster worker: drain and stop, as on SIGTERM. */
const SHUTDOWN = 'kolli:shutdown';
/** Failed starts in a row after which the primary stops instead of forking again. */
const WORKER_QUICK_FAILS = 5;

async function main(): Promise<void> {
  const config = loadConfig();
  if (config.workers <= 1) return serve(config, true);
  if (!config.databaseUrl) {
    throw new Error('KOLLI_WORKERS > 1 needs DATABASE_URL: the embedded database belongs to one process.');
  }
  if (cluster.isPrimary) {
    const database = await openConfiguredDatabase(config);
    await refuseWithoutAdministrator(config, database, createServices(database, config));
    const { sandbox } = await prepareDatabase(database, config);
    await database.close();
    if (sandbox) announceSandbox(sandbox, config.port);
    let stopping = false;
    // Each worker has a place (its metrics port is METRICS_PORT + it), kept by the one forked in its stead.
    const places = new Map<number, WorkerPlace>();
    const fork = (index: number, quickFails = 0) => {
      const worker = cluster.fork({ KOLLI_WORKER_INDEX: String(index) });
      places.set(worker.id, { index, listenedAt: null, quickFails });
    };
    for (let i = 0; i < config.workers; i++) fork(i);
    // Its first port listening (the API's) marks it started, for `failedStartsInARow`.
    cluster.on('listening', (worker) => {
      const place = places.get(worker.id);
      if (place) place.listenedAt ??= Date.now();
    });
    cluster.on('exit', (worker, code) => {
      const place = places.get(worker.id);
      places.delete(worker.id);
      if (stopping || code === 0 || !place) return;
      // A worker that cannot start (a port taken, a bad database) would be forked forever, the host
      // flapping unseen: after 5 failed starts in a row, the primary gives up, so the process manager
      // sees the failure.
      const quickFails = failedStartsInARow(place, Date.now());
      if (quickFails >= WORKER_QUICK_FAILS) {
        console.error(`worker ${place.index} failed to start ${quickFails} times in a row; stopping`);
        stopping = true;
        for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGKILL');
        process.exit(1);
      }
      console.error(`worker ${worker.process.pid} exited with ${code}; starting another`);
      setTimeout(() => stopping || fork(place.index, quickFails), quickFails * 1000);
    });
    // The workers are asked over IPC, not with the signal: when the whole process group got it too
    // (systemd, Ctrl-C), a forwarded copy would be each worker's second signal and end it at once,
    // without draining. A second signal to the primary does force: the workers are killed.
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.on(signal, () => {
        const workers = Object.values(cluster.workers ?? {});
        if (stopping) {
          for (const worker of workers) worker?.process.kill('SIGKILL');
          process.exit(1);
        }
        stopping = true;
        for (const worker of workers) worker?.send(SHUTDOWN);
      });
    }
    return;
  }
  return serve(config, false);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

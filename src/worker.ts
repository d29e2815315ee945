// `npm run worker`: the webhook delivery worker without the HTTP server. Run any number of these
// (and servers with KOLLI_WEBHOOK_WORKER=0) against one PostgreSQL; they share the work. It needs
// PostgreSQL: the embedded database's directory belongs to one process, the server, which delivers
// webhooks itself.
import closeWithGrace from 'close-with-grace';
import { loadConfig } from './config';
import { serializeError } from './http/faults';
import { openConfiguredDatabase } from './prepare';
import { createDeliveryEngine } from './webhooks/delivery';
import { startWebhookWorker, type WorkerLog, workerSettings } from './webhooks/worker';

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: 100 } as const;

/** JSON lines on stdout in pino's shape (level, time, msg), like the server's log. */
function jsonLog(level: keyof typeof LEVELS): WorkerLog {
  const threshold = LEVELS[level];
  const write = (n: number) => (obj: object, msg: string) => {
    if (n < threshold) return;
    const fields: Record<string, unknown> = { ...obj };
    const err = fields.err;
    // As the server logs errors: without query parameters or stored values (http/faults.ts).
    if (err instanceof Error) fields.err = serializeError(err);
    process.stdout.write(
      `${JSON.stringify({ level: n, time: Date.now(), name: 'webhook-worker', ...fields, msg })}\n`,
    );
  };
  return { info: write(LEVELS.info), warn: write(LEVELS.warn), error: write(LEVELS.error) };
}

async function main(): Promise<void> {
  const config = loadConfig();
  // Before anything opens the data directory (as server.ts refuses KOLLI_WORKERS > 1 without it).
  if (!config.databaseUrl) {
    throw new Error(
      'npm run worker needs DATABASE_URL: the embedded database belongs to one process, the server, which delivers webhooks itself.',
    );
  }
  const log = jsonLog(config.logLevel);
  const database = await openConfiguredDatabase(config);
  // Safe beside servers starting at the same time (migrations take an advisory lock).
  await database.migrate();
  const engine = createDeliveryEngine({ db: database.db, allowPrivate: config.webhookAllowPrivate });
  const worker = startWebhookWorker({ engine, ...workerSettings(config, database), log });
  // The fields of a server's `started` line (server.ts), and the lease owner its attempts carry.
  log.info(
    { mode: config.nodeEnv, database: 'postgresql', pid: process.pid, owner: engine.owner },
    'webhook worker started',
  );
  closeWithGrace({ delay: 15_000 }, async ({ err, signal }) => {
    if (err) log.error({ err }, 'webhook worker stopping after an error');
    else log.info({ signal }, 'webhook worker stopping');
    await worker.stop(11_000); // claimed attempts finish (10 s send timeout) and are recorded
    engine.close();
    await database.close();
  });
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

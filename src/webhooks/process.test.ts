// The real processes: `npm run worker` alone, and the worker inside `npm start`. Each runs against
// the database of the project (a PGlite data directory, or the PostgreSQL test database).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestDatabase, urlOfDatabase } from '../../test/helpers';
import { freePort, type Running, runNpm, stopGroup } from '../../test/processes';
import { type Database, openDatabase } from '../db/client';
import { emitEvents } from '../events/outbox';
import { parseOsloDateTime } from '../lib/oslo-time';
import { insertWebhook, type Receiver, startReceiver } from './test-support';

const onPostgres = process.env.KOLLI_TEST_DB === 'postgres';
const ADMIN_KEY = 'process-admin-key-0123456789abcdef';
const dataDir = mkdtempSync(join(tmpdir(), 'kolli-webhook-process-'));
let databaseUrl = '';
let receiver: Receiver;
let failFirst = false;

/** Opens the database the spawned process will use (PGlite allows one process at a time). */
async function withDatabase<T>(work: (database: Database) => Promise<T>): Promise<T> {
  const database = onPostgres
    ? await openDatabase({ url: databaseUrl, dataDir: null, poolSize: 2 })
    : await openDatabase({ url: null, dataDir });
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

let testDatabase: (Database & { dispose(): Promise<void> }) | null = null;

beforeAll(async () => {
  receiver = await startReceiver((_, i) => ({ status: failFirst && i === 0 ? 500 : 200 }));
  if (onPostgres) {
    testDatabase = await createTestDatabase();
    databaseUrl = await urlOfDatabase(testDatabase.db);
  } else {
    await withDatabase((database) => database.migrate());
  }
});
afterAll(async () => {
  await receiver?.close();
  await testDatabase?.dispose();
  rmSync(dataDir, { recursive: true, force: true });
});

function run(script: 'start' | 'worker', env: Record<string, string>): Running {
  return runNpm(script, {
    DATABASE_URL: databaseUrl,
    KOLLI_DATA_DIR: dataDir,
    KOLLI_WEBHOOK_ALLOW_PRIVATE: '1',
    KOLLI_ADMIN_KEY: ADMIN_KEY,
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    ...env,
  });
}

// The worker needs PostgreSQL: the embedded database belongs to the server (src/worker.unit.test.ts).
test.skipIf(!onPostgres)(
  'npm run worker alone delivers what was stored before it started, and stops on SIGTERM',
  async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    await withDatabase(async (database) => {
      await insertWebhook(database.db, { customerNr: '6001', url: `${receiver.url}/worker`, secret });
      await database.db.transaction((tx) =>
        emitEvents(tx, [
          { type: 'shipment.published', customerNr: '6001', shipmentId: 'PW1', parcelIds: ['PW1-1'] },
        ]),
      );
    });
    const worker = run('worker', {});
    try {
      await receiver.waitFor(1, 40_000);
    } catch (err) {
      throw new Error(`${err}\n${worker.output()}`);
    } finally {
      expect(await stopGroup(worker)).toSatisfy((code) => code === 0 || code === 'SIGTERM');
    }
    const [got] = receiver.received;
    if (!got) throw new Error('nothing received');
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({
      type: 'shipment.published',
      data: { ShipmentId: 'PW1' },
    });
    expect(worker.output()).toContain('webhook worker started');
  },
  60_000,
);

test('npm start runs the worker: a failed test message is retried about 5 s later', async () => {
  receiver.received.length = 0;
  failFirst = true;
  const port = await freePort();
  const server = run('start', { PORT: String(port), HOST: '127.0.0.1' });
  try {
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 90_000;
    for (;;) {
      try {
        if ((await fetch(`${base}/readyz`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`server did not start:\n${server.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    await fetch(`${base}/admin/customers`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ CustomerNr: '6002', Name: 'Process AS' }),
    });
    const created = await fetch(`${base}/v1/Webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        eventValue: '6002',
        eventValueType: 3,
        url: `${receiver.url}/start`,
        secret: 's',
      }),
    });
    expect(created.status).toBe(200);
    const { uuid } = (await created.json()) as { uuid: string };
    const tested = await fetch(`${base}/v1/Webhooks/${uuid}/test`, {
      method: 'POST',
      headers: { authorization: headers.authorization },
    });
    const answeredAt = Date.now();
    const answer = (await tested.json()) as { nextAttemptAt: string | null };
    expect(answer).toMatchObject({ succeeded: false, statusCode: 500 });
    // The retry is scheduled 5 s ± 10 % after the failed attempt ended, which lies between the
    // target's receipt and the answer (the answer shows the time in whole seconds)…
    const [first] = receiver.received;
    const retryAt = parseOsloDateTime(answer.nextAttemptAt ?? '')?.getTime() ?? 0;
    expect(retryAt - (first?.at ?? 0)).toBeGreaterThan(4500 - 1000);
    expect(retryAt - answeredAt).toBeLessThanOrEqual(5500);
    // …and the worker inside `npm start` sends it then: never early, and within its 1 s poll on a
    // quiet machine (a loaded CI machine gets slack; the server's log explains a miss).
    const [, second] = await receiver.waitFor(2, 30_000).catch((err) => {
      throw new Error(`${err}\n${server.output()}`);
    });
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    const gap = (second?.at ?? 0) - (first?.at ?? 0);
    expect(gap).toBeGreaterThanOrEqual(4400);
    expect(gap, server.output()).toBeLessThan(15_000);
  } finally {
    failFirst = false;
    expect(await stopGroup(server)).toSatisfy((code) => code === 0 || code === 'SIGTERM');
  }
}, 120_000);

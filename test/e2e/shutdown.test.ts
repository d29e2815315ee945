import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, expect, inject, test } from 'vitest';
import { withDatabase } from '../helpers';
import { freePort, groupEnded, runNpm } from '../processes';

const ADMIN_KEY = 'e2e-admin-key-0123456789abcdef';
const dataDir = mkdtempSync(join(tmpdir(), 'kolli-shutdown-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const status = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { headers }).then(
    (r) => r.status,
    () => 0, // refused
  );

test('SIGTERM: /readyz turns 503 first while requests are still served, in-flight requests finish, then it exits', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = runNpm('start', {
    PORT: String(port),
    HOST: '127.0.0.1',
    KOLLI_DATA_DIR: dataDir,
    KOLLI_ADMIN_KEY: ADMIN_KEY,
    KOLLI_SHUTDOWN_DRAIN_MS: '2500',
    DATABASE_URL: '',
    LOG_LEVEL: 'warn',
  });
  const deadline = Date.now() + 60_000;
  while ((await status(`${base}/readyz`)) !== 200) {
    if (Date.now() > deadline) throw new Error(`server did not start:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }

  // A request in flight: headers and half its body sent before the signal, the rest after it.
  const body = JSON.stringify({ CustomerNr: '4712', Name: 'In Flight AS' });
  const answered = new Promise<number>((resolve, reject) => {
    const req = request(`${base}/admin/customers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ADMIN_KEY}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.write(body.slice(0, 10));
    setTimeout(() => req.end(body.slice(10)), 1500);
  });
  await new Promise((r) => setTimeout(r, 200));

  const signalled = Date.now();
  if (server.child.pid) process.kill(-server.child.pid, 'SIGTERM');
  // Not ready at once, while still alive and serving: the balancer takes the host out first.
  let readyz = 200;
  while (readyz === 200 && Date.now() - signalled < 2000) readyz = await status(`${base}/readyz`);
  expect(readyz).toBe(503);
  expect(await status(`${base}/healthz`)).toBe(200);
  expect(await status(`${base}/admin/customers`, { authorization: `Bearer ${ADMIN_KEY}` })).toBe(200);

  expect(await answered).toBe(201);
  // npm passes the signal on and may end first; node has ended too once its group has.
  expect([0, 'SIGTERM']).toContain(await groupEnded(server));
  expect(await status(`${base}/healthz`)).toBe(0);
  // Not before the drain time: it kept serving while the balancer noticed.
  expect(Date.now() - signalled).toBeGreaterThanOrEqual(2500);
}, 120_000);

const postgres = process.env.TEST_DATABASE_URL;

/**
 * A production cluster of two workers on a scratch PostgreSQL database copied from the run's
 * template, started with `npm start`: `run` gets it, the database is dropped after.
 */
async function withCluster(
  env: { PORT: string; METRICS_PORT: string; LOG_LEVEL: string },
  run: (server: ReturnType<typeof runNpm>) => Promise<void>,
) {
  const url = postgres as string;
  const name = `kolli_cluster_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name} template ${inject('postgresTemplate')}`);
  try {
    await run(
      runNpm('start', {
        ...env,
        HOST: '127.0.0.1',
        NODE_ENV: 'production',
        DATABASE_URL: withDatabase(url, name),
        KOLLI_DATA_DIR: dataDir,
        KOLLI_ADMIN_KEY: ADMIN_KEY,
        KOLLI_WORKERS: '2',
        KOLLI_SHUTDOWN_DRAIN_MS: '2000',
      }),
    );
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

test.skipIf(!postgres)(
  'KOLLI_WORKERS=2: a metrics port each; SIGTERM to the whole process group drains every worker, none forced out',
  async () => {
    // Once each worker had the signal twice (its group's, and the primary's copy), took the second as
    // "force", and exited at once: no drain, requests in flight cut (systemd signals the whole group).
    const port = await freePort();
    const metrics = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = { PORT: String(port), METRICS_PORT: String(metrics), LOG_LEVEL: 'info' };
    await withCluster(env, async (server) => {
      const deadline = Date.now() + 60_000;
      const scraped = async () =>
        Promise.all([metrics, metrics + 1].map((m) => status(`http://127.0.0.1:${m}/metrics`)));
      while ((await status(`${base}/readyz`)) !== 200 || (await scraped()).some((s) => s !== 200)) {
        if (Date.now() > deadline) throw new Error(`server did not start:\n${server.output()}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      // Each worker is scraped on its own port (METRICS_PORT + its index): its counters are its own.
      expect(await scraped()).toEqual([200, 200]);
      const signalled = Date.now();
      if (server.child.pid) process.kill(-server.child.pid, 'SIGTERM');
      // Both workers drain: not ready, still serving, for the drain time.
      let readyz = 200;
      while (readyz === 200 && Date.now() - signalled < 1500) readyz = await status(`${base}/readyz`);
      expect(readyz, server.output()).toBe(503);
      expect(await status(`${base}/healthz`)).toBe(200);
      expect([0, 'SIGTERM']).toContain(await groupEnded(server));
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(2000);
      const output = server.output();
      expect(output).not.toMatch(/second SIG(TERM|INT), exiting/);
      expect(output.match(/"msg":"shutting down"/g)).toHaveLength(2);
    });
  },
  120_000,
);

test.skipIf(!postgres)(
  'KOLLI_WORKERS: workers that cannot start are not forked forever; the primary stops, failing',
  async () => {
    // Once forked again at once, forever: the API port flapped, and the process manager saw nothing.
    // The first worker's metrics port is taken, so it cannot start.
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const metrics = (taken.address() as AddressInfo).port;
    try {
      const env = { PORT: String(await freePort()), METRICS_PORT: String(metrics), LOG_LEVEL: 'warn' };
      await withCluster(env, async (server) => {
        expect(await groupEnded(server)).toBe(1);
        expect(server.output()).toMatch(/worker 0 failed to start 5 times in a row; stopping/);
      });
    } finally {
      taken.close();
    }
  },
  120_000,
);

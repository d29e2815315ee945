import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
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

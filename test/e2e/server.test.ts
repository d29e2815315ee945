import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { freePort, type Running, runNpm, stopGroup } from '../processes';

const ADMIN_KEY = 'e2e-admin-key-0123456789abcdef';
const dataDir = mkdtempSync(join(tmpdir(), 'kolli-e2e-'));
let port = 0;

/** Runs the real `npm start` with a fresh data directory and waits until it answers. */
async function start(): Promise<Running> {
  const running = runNpm('start', {
    PORT: String(port),
    HOST: '127.0.0.1',
    KOLLI_DATA_DIR: dataDir,
    KOLLI_ADMIN_KEY: ADMIN_KEY,
    DATABASE_URL: '',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'development',
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return running;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server did not start:\n${running.output()}`);
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test('npm start: sandbox credentials on first start, authenticated calls, data kept across a restart', async () => {
  port = await freePort();
  const first = await start();
  try {
    const file = join(dataDir, 'sandbox-credentials.json');
    expect(existsSync(file)).toBe(true);
    const credentials = JSON.parse(readFileSync(file, 'utf8')) as { Key: string; CustomerNr: string };
    expect(first.output()).toContain(credentials.Key);

    // A second process on the same embedded database is refused: it would not see the first's
    // bookings, and the last to close would write its files over the other's.
    const intruder = runNpm('start', {
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      KOLLI_DATA_DIR: dataDir,
      KOLLI_ADMIN_KEY: ADMIN_KEY,
      DATABASE_URL: '',
      NODE_ENV: 'development',
    });
    expect(await intruder.exited).not.toBe(0);
    expect(intruder.output()).toMatch(/is in use by process \d+/);

    const oslo = await fetch(`http://127.0.0.1:${port}/v1/postalcodes/0150`, {
      headers: { authorization: `Bearer ${credentials.Key}` },
    });
    expect(oslo.status).toBe(200);
    expect(((await oslo.json()) as { Place: string }).Place).toBe('OSLO');

    const created = await fetch(`http://127.0.0.1:${port}/admin/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ CustomerNr: '4711', Name: 'Persistent AS' }),
    });
    expect(created.status).toBe(201);
    expect([0, 'SIGTERM']).toContain(await stopGroup(first));

    const second = await start();
    try {
      expect(second.output()).not.toContain(credentials.Key);
      const again = await fetch(`http://127.0.0.1:${port}/v1/customers/1000`, {
        headers: { authorization: `Bearer ${credentials.Key}` },
      });
      expect(again.status).toBe(200);
      const customers = (await (
        await fetch(`http://127.0.0.1:${port}/admin/customers`, {
          headers: { authorization: `Bearer ${ADMIN_KEY}` },
        })
      ).json()) as { CustomerNr: string }[];
      expect(customers.map((c) => c.CustomerNr)).toEqual(['1000', '4711']);
    } finally {
      expect([0, 'SIGTERM']).toContain(await stopGroup(second));
    }
  } finally {
    try {
      if (first.child.pid) process.kill(-first.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}, 150_000);

test('npm run migrate on a fresh data directory prints the sandbox credentials it created', async () => {
  const fresh = mkdtempSync(join(tmpdir(), 'kolli-e2e-migrate-'));
  try {
    const migrate = runNpm('migrate', { KOLLI_DATA_DIR: fresh, DATABASE_URL: '', NODE_ENV: 'development' });
    expect(await migrate.exited, migrate.output()).toBe(0);
    const credentials = JSON.parse(readFileSync(join(fresh, 'sandbox-credentials.json'), 'utf8')) as {
      Key: string;
    };
    expect(migrate.output()).toContain(credentials.Key);
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
}, 150_000);

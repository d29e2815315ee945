import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';

const ADMIN_KEY = 'e2e-admin-key-0123456789abcdef';
const dataDir = mkdtempSync(join(tmpdir(), 'kolli-e2e-'));
let port = 0;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

interface Running {
  child: ChildProcess;
  output: () => string;
  /** The exit code, or the signal when npm itself was ended by the SIGTERM it passed on. */
  exited: Promise<number | string | null>;
}

/** Runs the real `npm start` with a fresh data directory and waits until it answers. */
async function start(): Promise<Running> {
  let output = '';
  const child = spawn('npm', ['start'], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      KOLLI_DATA_DIR: dataDir,
      KOLLI_ADMIN_KEY: ADMIN_KEY,
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<number | string | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal)),
  );
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return { child, output: () => output, exited };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server did not start:\n${output}`);
}

/** SIGTERM to the process group (npm and the server), as a process manager does; graceful means exit 0. */
async function stop(running: Running): Promise<number | string | null> {
  if (running.child.pid) process.kill(-running.child.pid, 'SIGTERM');
  return running.exited;
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
    expect([0, 'SIGTERM']).toContain(await stop(first));

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
      expect([0, 'SIGTERM']).toContain(await stop(second));
    }
  } finally {
    try {
      if (first.child.pid) process.kill(-first.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}, 150_000);

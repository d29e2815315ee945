import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { freePort, runNpm, stopGroup } from '../processes';

// Issue 17: a production server nobody can administer is a mistake, not a state.

const dataDir = mkdtempSync(join(tmpdir(), 'kolli-prod-'));
const warnedDir = mkdtempSync(join(tmpdir(), 'kolli-prod-warn-'));
afterAll(() => {
  for (const dir of [dataDir, warnedDir]) rmSync(dir, { recursive: true, force: true });
});

test('NODE_ENV=production without KOLLI_ADMIN_KEY and without a stored admin key refuses to start, in one line', async () => {
  const running = runNpm('start', {
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    NODE_ENV: 'production',
    KOLLI_ADMIN_KEY: '',
    KOLLI_DATA_DIR: dataDir,
    DATABASE_URL: '',
    LOG_LEVEL: 'warn',
  });
  const timeout = setTimeout(() => running.child.pid && process.kill(-running.child.pid, 'SIGKILL'), 60_000);
  const code = await running.exited;
  clearTimeout(timeout);
  expect(code).toBe(1);
  const lines = running
    .output()
    .split('\n')
    .filter((l) => l.includes('KOLLI_ADMIN_KEY'));
  expect(lines).toEqual([
    'Refusing to start: NODE_ENV=production without KOLLI_ADMIN_KEY and without a stored admin API key; set KOLLI_ADMIN_KEY to a secret of at least 16 characters.',
  ]);
}, 90_000);

test('a production start says its mode, and names the carrier settings left to the sandbox’s made-up values', async () => {
  // Once silent: parcel numbers under the demo GS1 prefix, invoices to a made-up bank account.
  const port = await freePort();
  const running = runNpm('start', {
    PORT: String(port),
    HOST: '127.0.0.1',
    NODE_ENV: 'production',
    KOLLI_ADMIN_KEY: 'e2e-admin-key-0123456789abcdef',
    KOLLI_GS1_PREFIX: '7080003',
    KOLLI_DATA_DIR: warnedDir,
    DATABASE_URL: '',
    LOG_LEVEL: 'info',
  });
  try {
    const deadline = Date.now() + 60_000;
    while (!running.output().includes('"msg":"started"')) {
      if (Date.now() > deadline) throw new Error(`no start:\n${running.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const lines = running.output().split('\n');
    const started = lines.find((l) => l.includes('"msg":"started"')) ?? '';
    expect(started).toMatch(/"mode":"production","database":"embedded"/);
    // Its pid once: a key twice in one JSON object is read differently by different log readers.
    expect(started.match(/"pid":/g)).toEqual(['"pid":']);
    const warning = JSON.parse(lines.find((l) => l.includes('made-up carrier')) ?? '{}');
    expect(warning.unset).toEqual([
      'KOLLI_SELLER_NAME',
      'KOLLI_SELLER_ORG_NR',
      'KOLLI_SELLER_ADDRESS',
      'KOLLI_SELLER_BANK_ACCOUNT',
    ]);
  } finally {
    await stopGroup(running);
  }
}, 90_000);

test('npm run migrate refused by a setting says so in one line, without a stack', async () => {
  const running = runNpm('migrate', { NODE_ENV: 'prod', KOLLI_DATA_DIR: dataDir, DATABASE_URL: '' });
  expect(await running.exited).toBe(1);
  const output = running.output();
  expect(output).toContain('nodeEnv: NODE_ENV must be one of development, test, production');
  expect(output).not.toMatch(/\n\s+at /);
}, 90_000);

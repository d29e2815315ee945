import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { freePort, runNpm } from '../processes';

// Issue 17: a production server nobody can administer is a mistake, not a state.

const dataDir = mkdtempSync(join(tmpdir(), 'kolli-prod-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

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

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { projectPath } from './lib/project-root';

// The embedded database's directory belongs to one process (the server, which delivers webhooks
// itself): `npm run worker` without DATABASE_URL refuses to start, in one line, before it opens it.

const dataDir = mkdtempSync(join(tmpdir(), 'kolli-worker-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test('npm run worker without DATABASE_URL refuses to start, in one line, and leaves the data directory alone', () => {
  // The source under tsx, not dist/: what this checkout says, without building.
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    cwd: projectPath(),
    env: { ...process.env, DATABASE_URL: '', KOLLI_DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.status, `${run.stdout}${run.stderr}`).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr.trim().split('\n')).toEqual([
    'npm run worker needs DATABASE_URL: the embedded database belongs to one process, the server, which delivers webhooks itself.',
  ]);
  expect(existsSync(dataDir) && readdirSync(dataDir)).toEqual([]);
}, 90_000);

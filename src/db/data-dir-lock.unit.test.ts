import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { lockDataDir } from './data-dir-lock';

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'kolli-lock-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test('one process holds a data directory; a second is refused while the first runs', async () => {
  const dir = dataDir();
  const other = spawn('sleep', ['30']);
  try {
    writeFileSync(join(dir, 'kolli.lock'), String(other.pid));
    expect(() => lockDataDir(dir)).toThrow(`is in use by process ${other.pid}`);
  } finally {
    other.kill();
  }
});

test('a lock left by a process that is gone is taken over, and given back on close', async () => {
  const dir = dataDir();
  const gone = spawn('true');
  await new Promise((resolve) => gone.on('exit', resolve));
  writeFileSync(join(dir, 'kolli.lock'), String(gone.pid));
  const release = lockDataDir(dir);
  expect(readFileSync(join(dir, 'kolli.lock'), 'utf8')).toBe(String(process.pid));
  release();
  expect(existsSync(join(dir, 'kolli.lock'))).toBe(false);
  // Taken again after it was given back.
  lockDataDir(dir)();
});

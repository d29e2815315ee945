import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { openDatabase } from './client';

const root = mkdtempSync(join(tmpdir(), 'kolli-client-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const modeOf = (path: string) => statSync(path).mode & 0o777;

test('the embedded database lives in a directory only the server user can enter, new or found open', async () => {
  // New: created for the owner alone, the data directory too when Kolli makes it.
  const fresh = join(root, 'fresh');
  const created = await openDatabase({ url: null, dataDir: fresh });
  await created.close();
  expect(modeOf(fresh)).toBe(0o700);
  expect(modeOf(join(fresh, 'pgdata'))).toBe(0o700);

  // Found readable by everyone (an install before this rule): closed to others on the next start.
  const open = join(root, 'open');
  mkdirSync(join(open, 'pgdata'), { recursive: true, mode: 0o755 });
  const reopened = await openDatabase({ url: null, dataDir: open });
  await reopened.close();
  expect(modeOf(join(open, 'pgdata'))).toBe(0o700);
  // Two fresh embedded databases (two initdb runs): 42 s once on a loaded 2-core machine.
}, 120_000);

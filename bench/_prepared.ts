// A database prepared for a benchmark whose server runs as its own process (bench/_process.ts):
// migrated, reference data loaded, customer 1000 and a key created here, then closed, so the
// server process opens it as `npm start` would.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createServices } from '../src/app';
import type { Scope } from '../src/auth/access';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/db/client';
import { prepareDatabase } from '../src/prepare';

export const ADMIN_KEY = `bench-admin-${randomBytes(12).toString('hex')}`;

export interface Prepared {
  /** Environment for the server process (PostgreSQL URL or data directory). */
  env: Record<string, string>;
  key: string;
  kind: 'pglite' | 'postgres';
  url: string | null;
  drop(): Promise<void>;
}

/**
 * With `adminUrl` (postgres://…): a scratch database `kolli_bench_<random>` beside it, dropped by
 * `drop()`; without: an embedded database in a temporary directory.
 */
export async function prepareBenchDatabase(adminUrl: string | undefined, scopes: Scope[]): Promise<Prepared> {
  let url: string | null = null;
  let name = '';
  if (adminUrl) {
    name = `kolli_bench_${randomBytes(4).toString('hex')}`;
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`create database ${name}`);
    await client.end();
    const u = new URL(adminUrl);
    u.pathname = `/${name}`;
    url = u.toString();
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'kolli-bench-'));
  const env: Record<string, string> = {
    KOLLI_DATA_DIR: dataDir,
    NODE_ENV: 'production',
    KOLLI_ADMIN_KEY: ADMIN_KEY,
    ...(url ? { DATABASE_URL: url } : {}),
  };
  const config = loadConfig({ ...process.env, ...env, LOG_LEVEL: 'silent' });
  const database = await openDatabase({ url, dataDir });
  const services = createServices(database, config);
  await prepareDatabase(database, config, services);
  if (!(await services.customers.get('1000')))
    await services.customers.create({ CustomerNr: '1000', Name: 'Bench AS' });
  const { Key } = await services.auth.createKey({ name: 'bench', customerNrs: ['1000'], scopes });
  await database.close();
  return {
    env,
    key: Key,
    kind: url ? 'postgres' : 'pglite',
    url,
    async drop() {
      if (!adminUrl) return;
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

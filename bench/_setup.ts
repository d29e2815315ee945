import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, createServices } from '../src/app';
import type { Scope } from '../src/auth/access';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/db/client';
import { prepareDatabase } from '../src/prepare';

/**
 * A server for a benchmark: on PostgreSQL when DATABASE_URL is set (use an empty scratch database),
 * else on a fresh embedded database in a temporary directory. Returns a key for customer 1000.
 */
export async function benchServer(scopes: Scope[]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'kolli-bench-'));
  const config = loadConfig({
    ...process.env,
    KOLLI_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    NODE_ENV: 'production',
    KOLLI_RATE_LIMIT_PER_MINUTE: '100000000',
  });
  const database = await openDatabase({ url: config.databaseUrl, dataDir, poolSize: 20 });
  const services = createServices(database, config);
  await prepareDatabase(database, config, services);
  if (!(await services.customers.get('1000')))
    await services.customers.create({ CustomerNr: '1000', Name: 'Bench AS' });
  const { Key } = await services.auth.createKey({ name: 'bench', customerNrs: ['1000'], scopes });
  const app = await buildApp({ config, database, services });
  await app.ready();
  return { app, database, services, config, key: Key, kind: database.kind };
}

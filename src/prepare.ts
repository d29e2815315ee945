import { ensureSandbox, type SandboxCredentials } from './admin/sandbox';
import { createServices, type Services } from './app';
import type { Config } from './config';
import { type Database, openDatabase } from './db/client';

/** Opens the configured database (PGlite under the data dir, or PostgreSQL). */
export const openConfiguredDatabase = (config: Config) =>
  openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });

/**
 * Everything a database needs before the first request: migrations, the shipped reference data
 * (loaded only when changed), and on a fresh non-production installation the sandbox credentials.
 */
export async function prepareDatabase(
  database: Database,
  config: Config,
  services: Services = createServices(database, config),
): Promise<{ sandbox: SandboxCredentials | null }> {
  await database.migrate();
  await services.postalCodes.loadShipped();
  return { sandbox: await ensureSandbox(services, config) };
}

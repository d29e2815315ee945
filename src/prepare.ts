import { ensureSandbox, type SandboxCredentials } from './admin/sandbox';
import { createServices, type Services } from './app';
import type { Config } from './config';
import { type Database, openDatabase } from './db/client';

/** Opens the configured database (PGlite under the data dir, or PostgreSQL). */
export const openConfiguredDatabase = (config: Config) =>
  openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
  });

/**
 * Loads the shipped reference data (postal register, catalogue, terminals, tariffs, …) into a
 * migrated database; each loader skips files that have not changed since the last load.
 * Every domain with shipped data adds its loader here, so the server and the tests load the same.
 */
export async function loadReferenceData(services: Services): Promise<void> {
  await services.postalCodes.loadShipped();
  // After the register: assigns every postal code its terminal.
  await services.terminals.loadShipped();
  await services.catalog.loadShipped();
  await services.pickupPoints.loadShipped();
  await services.pricing.loadShipped();
}

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
  await loadReferenceData(services);
  return { sandbox: await ensureSandbox(services, config) };
}

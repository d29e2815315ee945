// `npm run migrate`: applies the migrations and loads the shipped reference data, then exits.
import { announceSandbox } from './admin/sandbox';
import { loadConfig } from './config';
import { openConfiguredDatabase, prepareDatabase } from './prepare';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openConfiguredDatabase(config);
  try {
    const { sandbox } = await prepareDatabase(database, config);
    if (sandbox) announceSandbox(sandbox, config.port);
    console.log(`Database ready (${database.kind}).`);
  } finally {
    await database.close();
  }
}

// A refused setting, a held data directory or an unreachable database: one line, as the server says it.
main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

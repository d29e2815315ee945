// `npm run migrate`: applies the migrations and loads the shipped reference data, then exits.
import { announceSandbox } from './admin/sandbox';
import { loadConfig } from './config';
import { openConfiguredDatabase, prepareDatabase } from './prepare';

const config = loadConfig();
const database = await openConfiguredDatabase(config);
try {
  const { sandbox } = await prepareDatabase(database, config);
  if (sandbox) announceSandbox(sandbox, config.port);
  console.log(`Database ready (${database.kind}).`);
} finally {
  await database.close();
}

// `npm run migrate`: applies the migrations and loads the shipped reference data, then exits.
import { loadConfig } from './config';
import { openConfiguredDatabase, prepareDatabase } from './prepare';

const config = loadConfig();
const database = await openConfiguredDatabase(config);
try {
  await prepareDatabase(database, config);
  console.log(`Database ready (${database.kind}).`);
} finally {
  await database.close();
}

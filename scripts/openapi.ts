// Writes the served OpenAPI document to a file (default var/openapi.json) without opening a port:
// the app is built on an empty in-memory database, which building the document never queries.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/db/client';

export async function servedDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({ LOG_LEVEL: 'silent', KOLLI_DATA_DIR: resolve('var') });
  const database = await openDatabase({ url: null, dataDir: null });
  try {
    const app = await buildApp({ config, database });
    const res = await app.inject({ url: '/openapi.json' });
    await app.close();
    return res.json();
  } finally {
    await database.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = resolve(process.argv[2] ?? 'var/openapi.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(await servedDocument(), null, 2)}\n`);
  console.log(`wrote ${out}`);
}

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createServices } from '../src/app';
import { loadConfig } from '../src/config';
import { type Database, openDatabase } from '../src/db/client';
import { loadReferenceData } from '../src/prepare';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteDump: string;
    postgresTemplate: string | null;
  }
}

/** Migrations and the shipped reference data, applied once per run and copied into each test file's database. */
async function prepare(database: Database): Promise<void> {
  await database.migrate();
  await loadReferenceData(createServices(database, loadConfig({ LOG_LEVEL: 'silent' })));
}

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'kolli-test-'));
  // A migrated, seeded PGlite, dumped once: each test file starts from it in well under a second.
  const seeded = await openDatabase({ url: null, dataDir: null });
  await prepare(seeded);
  const dumpFile = join(dir, 'seeded.tar');
  const dump = await seeded.pglite?.dumpDataDir('none');
  if (!dump) throw new Error('expected an embedded database');
  writeFileSync(dumpFile, Buffer.from(await dump.arrayBuffer()));
  await seeded.close();
  project.provide('pgliteDump', dumpFile);

  let template: string | null = null;
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    template = `kolli_tpl_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create database ${template}`);
    const db = await openDatabase({ url: withDatabase(url, template), dataDir: null, poolSize: 2 });
    await prepare(db);
    await db.close();
    await admin.end();
  }
  project.provide('postgresTemplate', template);

  return async () => {
    rmSync(dir, { recursive: true, force: true });
    if (url && template) {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`drop database if exists ${template} with (force)`);
      await admin.end();
    }
  };
}

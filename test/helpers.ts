import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { expect, inject } from 'vitest';
import { buildApp, createServices, type Services } from '../src/app';
import type { Scope } from '../src/auth/access';
import { type Config, loadConfig } from '../src/config';
import { type Database, type OpenOptions, openDatabase } from '../src/db/client';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdef';

export const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

/**
 * A fresh, migrated database with the shipped reference data for one test file: PGlite loaded from
 * the run's dump, or (KOLLI_TEST_DB=postgres) a PostgreSQL database copied from the run's template.
 */
export async function createTestDatabase(
  settings: Pick<OpenOptions, 'statementTimeoutMs'> = {},
): Promise<Database & { dispose(): Promise<void> }> {
  if (process.env.KOLLI_TEST_DB === 'postgres') {
    const url = process.env.TEST_DATABASE_URL;
    const template = inject('postgresTemplate');
    if (!url || !template) throw new Error('TEST_DATABASE_URL and a template database are needed');
    const name = `kolli_t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create database ${name} template ${template}`);
    await admin.end();
    const database = await openDatabase({
      url: withDatabase(url, name),
      dataDir: null,
      poolSize: 10,
      ...settings,
    });
    return {
      ...database,
      async dispose() {
        await database.close();
        const drop = new pg.Client({ connectionString: url });
        await drop.connect();
        await drop.query(`drop database if exists ${name} with (force)`);
        await drop.end();
      },
    };
  }
  const dump = new Blob([readFileSync(inject('pgliteDump'))]);
  const database = await openDatabase({ url: null, dataDir: null, pglite: { loadDataDir: dump } });
  return { ...database, dispose: () => database.close() };
}

export interface TestContext {
  app: FastifyInstance;
  database: Database;
  services: Services;
  config: Config;
  /** A key for a customer with the given scopes (the customer is created when missing). */
  keyFor(options: { customerNrs?: string[]; scopes: Scope[] }): Promise<string>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Pins the time every service sees. */
  clock?: () => Date;
  extraRoutes?: (app: FastifyInstance) => void;
  /** Where the log goes (set LOG_LEVEL in `env` too); tests read it. */
  logStream?: NodeJS.WritableStream;
  /** True while the process would be shutting down (`/readyz` answers 503). */
  draining?: () => boolean;
}

export async function buildTestApp(options: TestAppOptions = {}): Promise<TestContext> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kolli-app-'));
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    KOLLI_ADMIN_KEY: ADMIN_KEY,
    KOLLI_DATA_DIR: dataDir,
    // Test files share a busy machine: a starved process is not an overloaded server, and a run of
    // fast tests inside one 1 s sample would all read a single stall as overload.
    KOLLI_MAX_EVENT_LOOP_DELAY_MS: '10000',
    ...options.env,
  });
  // The server's statement timeout as configured; not the client-side query timeout, a timer that a
  // busy test machine's event loop would fire late or early.
  const database = await createTestDatabase({ statementTimeoutMs: config.databaseStatementTimeoutMs });
  const services = createServices(database, config, { clock: options.clock });
  const app = await buildApp({
    config,
    database,
    services,
    extraRoutes: options.extraRoutes,
    logStream: options.logStream,
    draining: options.draining,
  });
  await app.ready();
  return {
    app,
    database,
    services,
    config,
    async keyFor({ customerNrs = ['1000'], scopes }) {
      const existing = await services.customers.existing(customerNrs);
      for (const nr of customerNrs) {
        if (!existing.has(nr)) await services.customers.create({ CustomerNr: nr, Name: `Customer ${nr} AS` });
      }
      return (await services.auth.createKey({ name: 'test', customerNrs, scopes })).Key;
    },
    async close() {
      await app.close();
      await database.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** The parsed JSON body of an injected response. */
export const json = <T = Record<string, unknown>>(res: LightMyRequestResponse): T => res.json() as T;

/** A stream that keeps what the server logs, for `buildTestApp({ logStream })`; `text()` is all of it. */
export function logCapture() {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk;
      done();
    },
  });
  return { stream, text: () => text };
}

/**
 * The carrier scans `parcelIds` as picked up at `time` (the §2 form, Oslo time), through the ops API,
 * with event ids `${idPrefix}-<i>`; every scan must be accepted.
 */
export async function pickUp(ctx: TestContext, parcelIds: readonly string[], time: string, idPrefix: string) {
  const ops = await ctx.keyFor({ customerNrs: [], scopes: ['ops'] });
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/ops/scans',
    headers: bearer(ops),
    payload: {
      Events: parcelIds.map((ParcelId, i) => ({
        EventId: `${idPrefix}-${i}`,
        ParcelId,
        EventType: 'PickedUp',
        Time: time,
      })),
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.body).not.toMatch(/rejected/);
  return res;
}

/** The administrator runs invoicing up to `toDate`; the run must be created. */
export async function invoiceUpTo(ctx: TestContext, toDate: string) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/admin/invoicing/runs',
    headers: bearer(ADMIN_KEY),
    payload: { ToDate: toDate },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res;
}

/** Asks `probe` every 50 ms until it answers something, for at most `timeoutMs`. */
export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A URL of the PostgreSQL test database `db` is connected to, for a second pool, session or process. */
export async function urlOfDatabase(db: Database['db']): Promise<string> {
  const { rows } = (await db.execute(sql`select current_database() as name`)) as unknown as {
    rows: { name: string }[];
  };
  return withDatabase(process.env.TEST_DATABASE_URL ?? '', rows[0]?.name ?? '');
}

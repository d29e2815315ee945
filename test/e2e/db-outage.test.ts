import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { buildApp, createServices } from '../../src/app';
import { loadConfig } from '../../src/config';
import { type Database, openDatabase } from '../../src/db/client';
import { isDatabaseUnavailable } from '../../src/http/faults';
import { osloBergenBooking } from '../factories';

// CONTRACT §4 and §13: PostgreSQL unreachable (stopped, restarting, refusing connections) answers
// 503 with Retry-After on every request that needs it, never 500; /readyz is 503; nothing is half
// written; and service comes back without a restart. The server reaches its own copy of the test
// database through a TCP proxy this test controls, so cutting it touches nothing else.

const url = process.env.TEST_DATABASE_URL;

/** A TCP proxy to PostgreSQL that can be cut (connections reset, new ones refused) and restored. */
class CuttableProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async listen(): Promise<void> {
    const server = net.createServer((client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      // Black-holed: the connection is accepted, and nothing ever comes back.
      if (this.holed) return void client.on('error', () => client.destroy());
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  private holed = false;

  /** The network drops everything: connections stay open, nothing is forwarded either way. */
  blackhole(): void {
    this.holed = true;
    for (const s of this.sockets) {
      s.unpipe();
      s.pause();
    }
  }

  /** The network is back: the held connections are reset (as a router's would be), new ones forwarded. */
  restore(): void {
    this.holed = false;
    for (const s of this.sockets) s.resetAndDestroy();
  }

  /** The database is gone: open connections are reset, new ones refused (nothing listens). */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    const closed = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    for (const s of this.sockets) s.resetAndDestroy();
    await closed;
  }

  async close(): Promise<void> {
    await this.cut();
  }
}

const databaseName = `kolli_outage_${randomBytes(5).toString('hex')}`;
const withDatabase = (base: string, name: string, port?: number) => {
  const u = new URL(base);
  u.pathname = `/${name}`;
  if (port) {
    u.hostname = '127.0.0.1';
    u.port = String(port);
  }
  return u.toString();
};

/** Short, so that the black-hole test waits seconds, not the production default. */
const QUERY_TIMEOUT_MS = 1500;
let proxy: CuttableProxy;
let database: Database;
let app: FastifyInstance;
let key = '';
const dataDir = mkdtempSync(join(tmpdir(), 'kolli-outage-'));

beforeAll(async () => {
  if (!url) return;
  const template = inject('postgresTemplate');
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${databaseName} template ${template}`);
  await admin.end();
  const target = new URL(url);
  proxy = new CuttableProxy(target.hostname, Number(target.port || 5432));
  await proxy.listen();
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    KOLLI_DATA_DIR: dataDir,
    // Four clients in a loop for the whole file: the per-key limit is not what these tests measure.
    KOLLI_RATE_LIMIT_PER_MINUTE: '1000000',
  });
  database = await openDatabase({
    url: withDatabase(url, databaseName, proxy.port),
    dataDir: null,
    poolSize: 8,
    queryTimeoutMs: QUERY_TIMEOUT_MS,
  });
  const services = createServices(database, config, { clock: () => new Date('2026-11-23T09:00:00Z') });
  app = await buildApp({ config, database, services });
  await app.ready();
  await services.customers.create({ CustomerNr: '1000', Name: 'Demo Kunde AS' });
  key = (
    await services.auth.createKey({
      name: 'outage',
      customerNrs: ['1000'],
      scopes: ['booking', 'shipments', 'webhooks'],
    })
  ).Key;
}, 60_000);

afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  if (!url) return;
  await app?.close();
  await proxy?.close();
  // Bounded: a pool whose server went away must not hold the run up.
  await Promise.race([database?.close(), new Promise((r) => setTimeout(r, 5000))]);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`drop database if exists ${databaseName} with (force)`);
  await admin.end();
});

const PARCELS = 3;
const MARK = `OUT-${randomBytes(3).toString('hex')}`;
let booked = 0;
/** The last booking answer other than 201, for failure messages. */
let lastRefusal = '';

/** One round of what clients do: book (three parcels), read, list webhooks, ask for readiness. */
async function round(): Promise<{ what: string; status: number; retryAfter?: string; id?: string }[]> {
  const auth = { authorization: `Bearer ${key}` };
  const booking = await app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: auth,
    payload: osloBergenBooking({
      SenderReference: `${MARK}-${booked++}`,
      Parcels: Array.from({ length: PARCELS }, () => ({ Weight: 2 })),
    }),
  });
  if (booking.statusCode !== 201) lastRefusal = booking.body.slice(0, 300);
  const id = booking.statusCode === 201 ? (booking.json() as { ShipmentId: string }).ShipmentId : undefined;
  const others = await Promise.all([
    app.inject({ url: '/v2/Shipment/70900010000000010', headers: auth }),
    app.inject({ url: '/v1/Webhooks', headers: auth }),
    app.inject({ url: '/readyz' }),
  ]);
  return [
    { what: 'booking', status: booking.statusCode, retryAfter: booking.headers['retry-after'] as string, id },
    ...['read', 'webhooks', 'readyz'].map((what, i) => ({
      what,
      status: others[i]?.statusCode ?? 0,
      retryAfter: others[i]?.headers['retry-after'] as string | undefined,
    })),
  ];
}

/** Runs rounds from four clients at once for `ms`, collecting every answer. */
async function load(ms: number) {
  const until = Date.now() + ms;
  const answers: Awaited<ReturnType<typeof round>> = [];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (Date.now() < until) answers.push(...(await round()));
    }),
  );
  return answers;
}

const count = (answers: { status: number }[]) =>
  answers.reduce<Record<number, number>>((acc, a) => {
    acc[a.status] = (acc[a.status] ?? 0) + 1;
    return acc;
  }, {});

test.skipIf(!url)(
  'with PostgreSQL cut off: 503 with Retry-After (never 500), /readyz 503, nothing half-written, service back within seconds',
  async () => {
    const before = await load(1500);
    expect(
      before.filter((a) => a.status >= 500),
      JSON.stringify(count(before)),
    ).toEqual([]);
    expect(
      before.some((a) => a.what === 'booking' && a.status === 201),
      lastRefusal,
    ).toBe(true);

    // Cut while clients are busy.
    const during = load(4000);
    await new Promise((r) => setTimeout(r, 300));
    await proxy.cut();
    const cutAnswers = await during;
    const statuses = count(cutAnswers);
    expect(
      cutAnswers.filter((a) => a.status === 500),
      JSON.stringify(statuses),
    ).toEqual([]);
    expect(
      cutAnswers.filter((a) => a.status >= 500 && a.status !== 503),
      JSON.stringify(statuses),
    ).toEqual([]);
    const unavailable = cutAnswers.filter((a) => a.status === 503);
    expect(unavailable.length).toBeGreaterThan(20);
    for (const a of unavailable) expect(a.retryAfter, a.what).toMatch(/^\d+$/);
    expect(new Set(unavailable.map((a) => a.what))).toEqual(
      new Set(['booking', 'read', 'webhooks', 'readyz']),
    );
    // The last answers, with the database long gone, are all 503 (the key cache has expired too).
    const lastReady = cutAnswers.filter((a) => a.what === 'readyz').at(-1);
    expect(lastReady?.status).toBe(503);

    // Back: full service within seconds, without a restart.
    await proxy.listen();
    const backAt = Date.now();
    let first: number | null = null;
    while (Date.now() - backAt < 15_000) {
      const answers = await round();
      if (answers.every((a) => a.status < 500)) {
        first = Date.now() - backAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(first, 'service did not come back within 15 s').not.toBeNull();
    expect(first).toBeLessThan(5000);
    const after = await load(1500);
    expect(
      after.filter((a) => a.status >= 500),
      JSON.stringify(count(after)),
    ).toEqual([]);

    // Nothing half-written: every booking of this run has all its parcels, and every 201 is stored.
    const direct = new pg.Client({ connectionString: withDatabase(url ?? '', databaseName) });
    await direct.connect();
    try {
      const { rows } = await direct.query<{ id: string; parcels: number }>(
        `select s.id, count(p.*)::int as parcels from shipments s left join parcels p on p.shipment_id = s.id
         where s.sender_reference like $1 group by s.id`,
        [`${MARK}-%`],
      );
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.filter((r) => r.parcels !== PARCELS)).toEqual([]);
      const stored = new Set(rows.map((r) => r.id));
      const created = [...before, ...cutAnswers, ...after].filter((a) => a.id).map((a) => a.id);
      expect(created.filter((id) => id && !stored.has(id))).toEqual([]);
    } finally {
      await direct.end();
    }
  },
  60_000,
);

test.skipIf(!url)(
  'a connection lost inside a transaction fails that transaction with an outage, and does not crash the process',
  async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const outcome = await database.db
        .transaction(async (tx) => {
          await tx.execute(sql`select 1`);
          // Between two statements the client is checked out and idle: the pool does not listen to it.
          await proxy.cut();
          await new Promise((r) => setTimeout(r, 300));
          await tx.execute(sql`select 1`);
        })
        .then(
          () => 'committed',
          (err: unknown) => err,
        );
      expect(outcome).not.toBe('committed');
      expect(isDatabaseUnavailable(outcome), String(outcome)).toBe(true);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await proxy.listen();
    }
    // And the pool serves again.
    await database.ping();
  },
  30_000,
);

test.skipIf(!url)(
  'with the network to PostgreSQL black-holed: 503 within the query and connect timeouts, never a hang or 500; back after it returns',
  async () => {
    const before = await load(1000);
    expect(
      before.filter((a) => a.status >= 500),
      JSON.stringify(count(before)),
    ).toEqual([]);

    proxy.blackhole();
    const started = Date.now();
    const answers = await load(500); // every round started within 0.5 s must still finish
    const took = Date.now() - started;
    // Connect timeout 5 s, query timeout 1.5 s: a round (booking, then three reads) ends well within 15 s.
    expect(took).toBeLessThan(15_000);
    const statuses = count(answers);
    expect(
      answers.filter((a) => a.status >= 500 && a.status !== 503),
      JSON.stringify(statuses),
    ).toEqual([]);
    expect(
      answers.filter((a) => a.what === 'booking').every((a) => a.status === 503),
      JSON.stringify(statuses),
    ).toBe(true);
    for (const a of answers.filter((x) => x.status === 503)) expect(a.retryAfter, a.what).toMatch(/^\d+$/);

    proxy.restore();
    const backAt = Date.now();
    let first: number | null = null;
    while (Date.now() - backAt < 15_000) {
      const round_ = await round();
      if (round_.every((a) => a.status < 500)) {
        first = Date.now() - backAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(first, 'service did not come back within 15 s').not.toBeNull();
  },
  60_000,
);

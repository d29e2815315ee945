import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { osloBergenBooking } from '../../test/factories';
import { bearer, buildTestApp, json, type TestContext, urlOfDatabase, waitFor } from '../../test/helpers';
import { createServices } from '../app';
import { openDatabase } from '../db/client';
import { jobTicks } from '../jobs/tables';
import { claimTick, TickTaken } from '../jobs/ticks';
import { scheduleInvoicing } from './scheduled';
import { invoiceRuns, invoiceShipments, invoices } from './tables';

// Monday 23 November 2026 in Oslo; the shipments are picked up on the 30th and invoiced on 1 December.
let now = new Date('2026-11-23T09:00:00Z');
let ctx: TestContext;
let senderKey: string;
let opsKey: string;

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => now });
  senderKey = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['booking'] });
  opsKey = await ctx.keyFor({ customerNrs: [], scopes: ['ops'] });
});
afterAll(() => ctx.close());

let scans = 0;
async function pickedUpShipment(): Promise<string> {
  now = new Date('2026-11-23T09:00:00Z');
  const booked = await ctx.app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: bearer(senderKey),
    payload: osloBergenBooking(),
  });
  expect(booked.statusCode, booked.body).toBe(201);
  const { ShipmentId, ParcelIds } = json<{ ShipmentId: string; ParcelIds: string[] }>(booked);
  now = new Date('2026-12-01T09:00:00Z');
  const scanned = await ctx.app.inject({
    method: 'POST',
    url: '/ops/scans',
    headers: bearer(opsKey),
    payload: {
      Events: ParcelIds.map((p) => ({
        EventId: `tick-${++scans}`,
        ParcelId: p,
        EventType: 'PickedUp',
        Time: '2026-11-30T09:50:00',
      })),
    },
  });
  expect(scanned.statusCode, scanned.body).toBe(200);
  expect(scanned.body).not.toContain('rejected');
  return ShipmentId;
}

const silent = { info() {}, error() {} };

test('three processes on one schedule give one invoicing run per tick', async () => {
  const shipmentId = await pickedUpShipment();
  const runsBefore = (await ctx.database.db.select().from(invoiceRuns)).length;
  // Three schedulers over one database, as three hosts of a fleet, every second.
  const jobs = ['a', 'b', 'c'].map((holder) =>
    scheduleInvoicing(
      createServices(ctx.database, ctx.config, { clock: () => now }).invoicing,
      '* * * * * *',
      silent,
      () => now,
      holder,
    ),
  );
  await new Promise((r) => setTimeout(r, 3500));
  await Promise.all(jobs.map((j) => j.stop()));
  const ticks = await ctx.database.db.select().from(jobTicks).where(eq(jobTicks.job, 'invoicing'));
  const runs = (await ctx.database.db.select().from(invoiceRuns)).slice(runsBefore);
  expect(ticks.length).toBeGreaterThanOrEqual(2);
  expect(runs).toHaveLength(ticks.length);
  // Each run committed with its tick: the same transaction, the same now().
  expect(runs.map((r) => r.createdAt.getTime()).sort()).toEqual(ticks.map((t) => t.ranAt.getTime()).sort());
  const lines = await ctx.database.db
    .select()
    .from(invoiceShipments)
    .where(eq(invoiceShipments.shipmentId, shipmentId));
  expect(lines).toHaveLength(1);
});

test('a tick already run is given up by a late process, and leaves no run behind', async () => {
  const tick = new Date('2026-12-01T01:00:00Z');
  await ctx.database.db.transaction((tx) => claimTick(tx, 'late-test', tick, 'first'));
  const runsBefore = (await ctx.database.db.select().from(invoiceRuns)).length;
  await expect(
    ctx.services.invoicing.run({ ToDate: '2026-11-30' }, (tx) => claimTick(tx, 'late-test', tick, 'late')),
  ).rejects.toBeInstanceOf(TickTaken);
  expect(await ctx.database.db.select().from(invoiceRuns)).toHaveLength(runsBefore);
});

// Two connections at once need a server; the embedded database has one connection.
test.runIf(process.env.KOLLI_TEST_DB === 'postgres')(
  'a holder that dies mid-run is taken over by another process, and nothing is invoiced twice',
  async () => {
    const shipmentId = await pickedUpShipment();
    const url = await urlOfDatabase(ctx.database.db);
    const hostA = await openDatabase({ url, dataDir: null, poolSize: 4 });
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    try {
      const tick = new Date('2026-12-01T02:00:00Z');
      const { rows } = (await ctx.database.db.execute(
        sql`select coalesce(max(invoice_nr), 0) as last from invoices`,
      )) as unknown as { rows: { last: number }[] };
      const lastBefore = rows[0]?.last ?? 0;
      // Host A gets stuck after writing its invoice (its event insert waits on a table lock)...
      await blocker.query('begin; lock table outbox_events in exclusive mode');
      const servicesA = createServices(hostA, ctx.config, { clock: () => now });
      const runA = servicesA.invoicing.run({ ToDate: '2026-11-30' }, (tx) =>
        claimTick(tx, 'invoicing', tick, 'A'),
      );
      runA.catch(() => {});
      // The blocker is inside a transaction: clear its statistics snapshot on every look.
      const activity = (where: string) =>
        blocker
          .query('select pg_stat_clear_snapshot()')
          .then(() =>
            blocker.query(`select pid from pg_stat_activity where wait_event_type = 'Lock' and ${where}`),
          );
      const pidA = await waitFor(async () => {
        const { rows } = await activity(`query ilike '%outbox_events%'`);
        return rows[0]?.pid as number | undefined;
      });
      // ...host B fires on the same tick and waits for A's claim...
      const runB = ctx.services.invoicing.run({ ToDate: '2026-11-30' }, (tx) =>
        claimTick(tx, 'invoicing', tick, 'B'),
      );
      await waitFor(async () => {
        const { rows } = await activity(`query ilike '%job_ticks%'`);
        return rows.length > 0 || undefined;
      });
      // ...and A dies: PostgreSQL ends its session and rolls its run back.
      await blocker.query('select pg_terminate_backend($1)', [pidA]);
      await expect(runA).rejects.toThrow();
      await blocker.query('commit');
      const result = await runB;
      expect(result.Invoices).toHaveLength(1);
      expect(result.Invoices[0]?.InvoiceNr).toBe(Number(lastBefore) + 1);
      const ticks = await ctx.database.db.select().from(jobTicks).where(eq(jobTicks.tick, tick));
      expect(ticks.map((t) => t.holder)).toEqual(['B']);
      const lines = await ctx.database.db
        .select({ invoiceNr: invoiceShipments.invoiceNr })
        .from(invoiceShipments)
        .where(eq(invoiceShipments.shipmentId, shipmentId));
      expect(lines).toEqual([{ invoiceNr: Number(lastBefore) + 1 }]);
      const numbers = (await ctx.database.db.select({ nr: invoices.invoiceNr }).from(invoices)).map(
        (r) => r.nr,
      );
      expect(numbers.sort((a, b) => a - b)).toEqual(numbers.map((_, i) => i + 1));
    } finally {
      await blocker.end().catch(() => {});
      await hostA.close().catch(() => {});
    }
  },
);

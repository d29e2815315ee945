import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { osloBergenBooking } from '../../test/factories';
import { bearer, buildTestApp, json, type TestContext, urlOfDatabase, waitFor } from '../../test/helpers';
import type { Account } from '../auth/access';
import { gsin } from '../lib/gs1';
import { createBookingPricing } from './pricing';
import type { ShipmentUpdate } from './schemas';
import { createBookingService } from './service';

// Concurrent requests on one shipment: they take turns or get a conflict to retry, never a 500.
//
// Whoever locks several shipments locks them in id order (store/shipments.ts, `lockShipments`), so
// two transactions wait for each other instead of deadlocking. The lock-order tests hold the lower
// id in a second session, as a scan batch that has locked it and goes on to the higher one, let the
// other side start and wait, and then take the higher id: locked in any other order, PostgreSQL
// finds a deadlock there and fails one of them. Two sessions at once need a server.
const postgresOnly = test.runIf(process.env.KOLLI_TEST_DB === 'postgres');

let ctx: TestContext;
let key: string;
let scanner: pg.Client;

beforeAll(async () => {
  ctx = await buildTestApp();
  key = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['booking', 'shipments'] });
  if (process.env.KOLLI_TEST_DB !== 'postgres') return;
  scanner = new pg.Client({ connectionString: await urlOfDatabase(ctx.database.db) });
  await scanner.connect();
});
afterAll(async () => {
  await scanner?.end();
  await ctx.close();
});

async function book(over: Record<string, unknown> = {}) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: bearer(key),
    payload: osloBergenBooking(over),
  });
  expect(res.statusCode, res.body).toBe(201);
  return json<{ ShipmentId: string; ReturnShipmentId: string | null }>(res);
}

/** Waits until another session waits for a row lock in a statement on `shipments`. */
const someoneWaits = () =>
  waitFor(async () => {
    await scanner.query('select pg_stat_clear_snapshot()');
    const { rows } = await scanner.query(
      `select 1 from pg_stat_activity
        where wait_event_type = 'Lock' and pid <> pg_backend_pid() and datname = current_database()
          and query ilike '%shipments%'`,
    );
    return rows.length > 0 || undefined;
  });

const lock = (id: string) => scanner.query('select id from shipments where id = $1 for update', [id]);

postgresOnly(
  'an invoicing run marks its shipments in id order, whatever order the table holds them in',
  async () => {
    const [low, high] = [(await book()).ShipmentId, (await book()).ShipmentId].sort();
    if (!low || !high) throw new Error('two shipments were booked');
    // A new row version of the lower id: the table now holds the higher one first.
    await ctx.database.db.execute(sql`update shipments set version = version where id = ${low}`);

    await scanner.query('begin');
    await lock(low);
    const marking = ctx.database.db.transaction(async (tx) => {
      // Read the table in its own order, as a plan for many ids does.
      await tx.execute(sql`set local enable_indexscan = off`);
      await tx.execute(sql`set local enable_bitmapscan = off`);
      await ctx.services.booking.markInvoiced(tx, [low, high]);
    });
    marking.catch(() => {});
    await someoneWaits();
    await lock(high);
    await scanner.query('commit');
    await marking;

    const { rows } = (await ctx.database.db.execute(
      sql`select count(*)::int as n from shipments where id in (${low}, ${high}) and invoiced_at is not null`,
    )) as unknown as { rows: { n: number }[] };
    expect(rows[0]?.n).toBe(2);
  },
);

postgresOnly('a cancel locks the shipment and its return shipment in id order', async () => {
  // A client-chosen id that sorts after the return shipment's generated one.
  const { ShipmentId, ReturnShipmentId } = await book({
    ShipmentId: gsin('9912345', 4711),
    ProductCode: 'HE',
    DeliveryType: 0,
    ShouldGenerateReturnShipment: true,
  });
  if (!ReturnShipmentId) throw new Error('a return shipment was generated');
  expect(ReturnShipmentId < ShipmentId).toBe(true);

  await scanner.query('begin');
  await lock(ReturnShipmentId);
  const cancelling = ctx.app.inject({
    method: 'DELETE',
    url: `/v2/Shipment/${ShipmentId}`,
    headers: bearer(key),
  });
  await someoneWaits();
  await lock(ShipmentId);
  await scanner.query('commit');

  const res = await cancelling;
  expect(res.statusCode, res.body).toBe(204);
  const { rows } = (await ctx.database.db.execute(
    sql`select count(*)::int as n from shipments where id in (${ShipmentId}, ${ReturnShipmentId}) and cancelled_at is not null`,
  )) as unknown as { rows: { n: number }[] };
  expect(rows[0]?.n).toBe(2);
});

test('a publish whose parcels keep changing while it is priced answers 409 and changes nothing', async () => {
  const draft = await book({ ShipmentStatus: 'Draft' });
  const account: Account = {
    keyId: 'test',
    name: 'test',
    scopes: new Set(['booking']),
    customerNrs: new Set(['1000']),
  };
  const real = createBookingPricing(ctx.services.pricing);
  let added = 0;
  // Every time the publish is priced, another request adds a parcel first.
  const racing = createBookingService({
    db: ctx.database.db,
    config: ctx.config,
    catalog: ctx.services.catalog,
    postalCodes: ctx.services.postalCodes,
    customers: ctx.services.customers,
    schedule: ctx.services.schedule,
    pickupPoints: ctx.services.pickupPoints,
    pricing: {
      async priceShipment(input) {
        added++;
        const res = await ctx.app.inject({
          method: 'POST',
          url: '/Shipment/Update',
          headers: bearer(key),
          payload: osloBergenBooking({
            ShipmentId: draft.ShipmentId,
            ShipmentStatus: 'Draft',
            Parcels: [{ Weight: 1 }],
          }),
        });
        expect(res.statusCode, res.body).toBe(200);
        return real.priceShipment(input);
      },
    },
  });
  const publish = osloBergenBooking({ ShipmentId: draft.ShipmentId, Parcels: [] }) as ShipmentUpdate;
  await expect(racing.update(account, publish)).rejects.toMatchObject({
    kind: 'conflict',
    code: 'shipment_changed',
  });
  expect(added).toBe(6);
  const read = await ctx.app.inject({ url: `/v2/Shipment/${draft.ShipmentId}`, headers: bearer(key) });
  const records = json<{ ParcelStatus: number }[]>(read);
  expect(records).toHaveLength(1 + 6);
  expect(records.every((r) => r.ParcelStatus === 0)).toBe(true);
});

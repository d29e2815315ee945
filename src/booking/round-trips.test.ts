import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { measuredParcels, osloBergenBooking } from '../../test/factories';
import { bearer, buildTestApp, type TestContext } from '../../test/helpers';
import { bookingStatements, countRoundTrips, isNewShipmentWrite } from '../../test/round-trips';
import { DRAW_AHEAD } from './store/serials';

// A 1-parcel Published booking is the hot write (CONTRACT §13, issue 18): its database round trips
// are counted, not timed. The reference data, the customer, the key and the rate-limit grant come
// from per-process caches once warm and the serials from the block in hand, so the steady state is
// ONE statement for shipment + parcels + outbox events, atomic on its own and sent without BEGIN and
// COMMIT; with an Idempotency-Key the claim, and a transaction holding the write and the stored answer.

const NOW = new Date('2026-11-23T09:00:00Z');
let ctx: TestContext;
let key: string;

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => NOW, env: { KOLLI_RATE_LIMIT_PER_MINUTE: '1000000' } });
  key = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['booking', 'shipments'] });
});
afterAll(() => ctx.close());

const onePublishedParcel = osloBergenBooking({
  Parcels: [{ Weight: 12.5, Length: 60, Width: 40, Height: 30 }],
});

let serial = 0;
async function book(withKey: boolean) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: { ...bearer(key), ...(withKey ? { 'idempotency-key': `rt-${++serial}` } : {}) },
    payload: onePublishedParcel,
  });
  expect(res.statusCode, res.body).toBe(201);
}

/** The fewest round trips of three bookings after a warm-up (a cache refresh may fall into one). */
async function steadyRoundTrips(withKey: boolean) {
  await book(withKey);
  const counts = [];
  for (let i = 0; i < 3; i++) counts.push(await countRoundTrips(ctx.database, () => book(withKey)));
  counts.sort((a, b) => a.count - b.count);
  return counts[0] as (typeof counts)[number];
}

test('a 1-parcel Published booking makes 1 round trip: the one statement, without BEGIN and COMMIT', async () => {
  // Serials come from the block in hand (store/serials.ts); a block is drawn once per 1 000.
  const { count, statements } = await steadyRoundTrips(false);
  expect(count, statements.join('\n')).toBe(1);
  // The shipment, its parcel and its outbox events are written by one statement.
  expect(statements.filter((s) => /insert into "?(shipments|parcels|outbox_events)/i.test(s))).toHaveLength(
    1,
  );
});

test.runIf(process.env.KOLLI_TEST_DB === 'postgres')(
  'on PostgreSQL the write is sent as a named prepared statement (src/db/named.ts)',
  async () => {
    const { statements, names } = await steadyRoundTrips(false);
    const write = statements.findIndex(isNewShipmentWrite);
    expect(write, statements.join('\n')).toBeGreaterThanOrEqual(0);
    expect(names[write]).toMatch(/^kolli_[0-9a-f]{24}$/);
  },
);

test('999-parcel bookings in a row: one statement each, and serial draws only once in DRAW_AHEAD + 1', async () => {
  const big = osloBergenBooking({ Parcels: measuredParcels(999) });
  await book(false); // the key and the catalogue cached, whatever ran before
  const bookings = 2 * (DRAW_AHEAD + 1);
  const { statements } = await countRoundTrips(ctx.database, async () => {
    for (let i = 0; i < bookings; i++) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/Shipment/Update',
        headers: bearer(key),
        payload: big,
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  });
  const { writes, draws, begins } = bookingStatements(statements);
  expect(writes, statements.join('\n')).toBe(bookings);
  expect(begins, statements.join('\n')).toBe(0);
  // Two parcel draws, and at most one shipment draw (a block of shipment serials may run out here);
  // drawing one block at a time would draw before nearly every booking (a block is 1 000 serials).
  expect(draws, statements.join('\n')).toBeLessThanOrEqual(3);
});

test('with an Idempotency-Key it makes at most 5 (the claim and the stored answer besides)', async () => {
  const { count, statements } = await steadyRoundTrips(true);
  expect(count, statements.join('\n')).toBeLessThanOrEqual(5);
});

test('the one-statement write stores the shipment, its parcel and both outbox events', async () => {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: bearer(key),
    payload: onePublishedParcel,
  });
  expect(res.statusCode).toBe(201);
  const { ShipmentId, ParcelIds } = res.json() as { ShipmentId: string; ParcelIds: string[] };
  const { rows } = (await ctx.database.db.execute(
    sql`select type, parcel_ids, data from outbox_events where shipment_id = ${ShipmentId} order by id`,
  )) as unknown as { rows: { type: string; parcel_ids: string[]; data: Record<string, unknown> }[] };
  expect(rows.map((r) => r.type)).toEqual(['shipment.created', 'shipment.published']);
  expect(rows.map((r) => r.parcel_ids)).toEqual([ParcelIds, ParcelIds]);
  expect(rows[1]?.data).toMatchObject({ ShipmentStatus: 2, NumberOfParcels: 1 });
  const read = await ctx.app.inject({ url: `/v2/Shipment/${ShipmentId}`, headers: bearer(key) });
  expect(read.statusCode).toBe(200);
  expect((read.json() as { ParcelId?: string }[]).map((r) => r.ParcelId ?? null)).toHaveLength(1);
});

import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osloBergenBooking } from '../../test/factories';
import { bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import { shipments } from '../booking/tables';
import { outboxEvents } from '../events/tables';
import { createOperationsService } from './service';
import { scanEvents } from './tables';

// Monday 23 November 2026, 10:00 in Oslo.
const NOW = new Date('2026-11-23T09:00:00Z');

let ctx: TestContext;
let key: string;
let ops: string;
let otherKey: string;

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => NOW });
  key = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['booking', 'shipments'] });
  otherKey = await ctx.keyFor({ customerNrs: ['2000'], scopes: ['booking', 'shipments'] });
  ops = await ctx.keyFor({ customerNrs: [], scopes: ['ops'] });
});
afterAll(() => ctx.close());

interface Booked {
  ShipmentId: string;
  ParcelIds: string[];
}

async function book(over: Record<string, unknown> = {}): Promise<Booked> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: bearer(key),
    payload: osloBergenBooking({
      RecipientCompanyName: undefined,
      RecipientFirstName: 'Kari',
      RecipientLastName: 'Nordmann',
      RecipientAddress2: 'Inngang B',
      Parcels: [{ Weight: 2.5 }, { Weight: 4 }],
      ...over,
    }),
  });
  expect(res.statusCode, res.body).toBe(201);
  return json<Booked>(res);
}

type Scan = { EventId: string; ParcelId: string; EventType: string; Time: string; Terminal?: string };
const scan = (events: Scan[], k = ops) =>
  ctx.app.inject({ method: 'POST', url: '/ops/scans', headers: bearer(k), payload: { Events: events } });
const results = (res: Awaited<ReturnType<typeof scan>>) =>
  json<{ Results: { EventId: string; Status: string; Errors: string[] }[] }>(res).Results;
const list = (query: string, k = key) =>
  ctx.app.inject({ url: `/v1/shipment/list?${query}`, headers: bearer(k) });

describe('POST /ops/scans', () => {
  test('a rejected event does not make a later valid one with its EventId a duplicate', async () => {
    const { ParcelIds } = await book();
    const r = results(
      await scan([
        { EventId: 'dup-1', ParcelId: 'UNKNOWN', EventType: 'PickedUp', Time: '2026-11-23T09:30:00' },
        {
          EventId: 'dup-1',
          ParcelId: ParcelIds[0] ?? '',
          EventType: 'PickedUp',
          Time: '2026-11-23T09:30:00',
        },
        {
          EventId: 'dup-1',
          ParcelId: ParcelIds[0] ?? '',
          EventType: 'PickedUp',
          Time: '2026-11-23T09:30:00',
        },
      ]),
    );
    expect(r.map((x) => x.Status)).toEqual(['rejected', 'accepted', 'duplicate']);
    const stored = await ctx.database.db.select().from(scanEvents).where(eq(scanEvents.eventId, 'dup-1'));
    expect(stored).toHaveLength(1);
  });

  test('concurrent batches over the same shipments in opposite orders both succeed (no deadlock)', async () => {
    const booked = await Promise.all(Array.from({ length: 10 }, () => book({ Parcels: [{ Weight: 1 }] })));
    const events = (prefix: string, list: typeof booked) =>
      list.map((b, i) => ({
        EventId: `${prefix}-${i}`,
        ParcelId: b.ParcelIds[0] ?? '',
        EventType: 'PickedUp',
        Time: '2026-11-23T09:30:00',
      }));
    const [a, b] = await Promise.all([
      scan(events('fwd', booked)),
      scan(events('rev', [...booked].reverse())),
    ]);
    expect(a.statusCode, a.body).toBe(200);
    expect(b.statusCode, b.body).toBe(200);
    expect([...results(a), ...results(b)].every((r) => r.Status === 'accepted')).toBe(true);
  });

  test('a shipment cancelled between the checks and the write takes no pickup scan', async () => {
    const { ShipmentId, ParcelIds } = await book();
    // The terminal list is read after the parcels are checked and before the transaction: cancel there.
    const racing = createOperationsService({
      db: ctx.database.db,
      booking: ctx.services.booking,
      clock: () => NOW,
      terminalCodes: async () => {
        await ctx.database.db.update(shipments).set({ cancelledAt: NOW }).where(eq(shipments.id, ShipmentId));
        return new Set(['OSL']);
      },
    });
    const [result] = await racing.recordScans([
      { EventId: 'race-1', ParcelId: ParcelIds[0] ?? '', EventType: 'PickedUp', Time: '2026-11-23T09:30:00' },
    ]);
    expect(result).toMatchObject({ Status: 'rejected', Errors: [`Shipment ${ShipmentId} is cancelled.`] });
    const [row] = await ctx.database.db.select().from(shipments).where(eq(shipments.id, ShipmentId));
    expect(row?.pickedUpAt).toBeNull();
    expect(await ctx.database.db.select().from(scanEvents).where(eq(scanEvents.eventId, 'race-1'))).toEqual(
      [],
    );
  });

  test('accepted, duplicate and rejected events in one batch, in request order', async () => {
    const { ParcelIds } = await book();
    const [a, b] = ParcelIds as [string, string];
    const res = await scan([
      { EventId: 'e1', ParcelId: a, EventType: 'PickedUp', Time: '2026-11-23T09:30:00', Terminal: 'OSL' },
      { EventId: 'e1', ParcelId: a, EventType: 'PickedUp', Time: '2026-11-23T09:30:00' },
      { EventId: 'e2', ParcelId: 'UNKNOWN', EventType: 'PickedUp', Time: '2026-11-23T09:30:00' },
      { EventId: 'e3', ParcelId: b, EventType: 'Teleported', Time: '2026-11-23T09:30:00' },
      { EventId: 'e4', ParcelId: b, EventType: 'PickedUp', Time: '2026-11-23T11:00:00' },
      { EventId: 'e5', ParcelId: b, EventType: 'PickedUp', Time: 'not a time' },
      { EventId: 'e6', ParcelId: b, EventType: 'PickedUp', Time: '2026-11-23T09:40:00', Terminal: 'XXX' },
    ]);
    expect(res.statusCode).toBe(200);
    const r = results(res);
    expect(r.map((x) => x.Status)).toEqual([
      'accepted',
      'duplicate',
      'rejected',
      'rejected',
      'rejected',
      'rejected',
      'rejected',
    ]);
    expect(r[4]?.Errors[0]).toMatch(/future/);
    expect(r[6]?.Errors[0]).toMatch(/Terminal/);
    // The same batch again: all duplicates or rejections, nothing new.
    expect(
      results(
        await scan([{ EventId: 'e1', ParcelId: a, EventType: 'PickedUp', Time: '2026-11-23T09:30:00' }]),
      )[0]?.Status,
    ).toBe('duplicate');
  });

  test('a scan more than 24 hours older than its shipment’s publication is rejected and moves nothing', async () => {
    // Published at 10:00 on 23 November (the test clock): a late booking of a parcel picked up the
    // day before still takes its scan; one from the summer before does not.
    const { ShipmentId, ParcelIds } = await book();
    const [a, b] = ParcelIds as [string, string];
    const r = results(
      await scan([
        { EventId: 'old-1', ParcelId: a, EventType: 'PickedUp', Time: '2025-06-02T10:00:00' },
        { EventId: 'old-2', ParcelId: b, EventType: 'Delivered', Time: '2026-11-22T09:59:00' },
        { EventId: 'late-1', ParcelId: b, EventType: 'PickedUp', Time: '2026-11-22T10:01:00' },
      ]),
    );
    expect(r.map((x) => x.Status)).toEqual(['rejected', 'rejected', 'accepted']);
    expect(r[0]?.Errors).toEqual([
      `Time is more than 24 hours before shipment ${ShipmentId} was published (2026-11-23T10:00:00).`,
    ]);
    const [row] = await ctx.database.db
      .select({ pickupDate: shipments.pickupDate, deliveredAt: shipments.deliveredAt })
      .from(shipments)
      .where(eq(shipments.id, ShipmentId));
    expect(row).toEqual({ pickupDate: '2026-11-22', deliveredAt: null });
  });

  test('only published, not cancelled shipments take events', async () => {
    const draft = await book({ ShipmentStatus: 'Draft' });
    const cancelled = await book();
    await ctx.app.inject({
      method: 'DELETE',
      url: `/v2/Shipment/${cancelled.ShipmentId}`,
      headers: bearer(key),
    });
    const r = results(
      await scan([
        {
          EventId: 'd1',
          ParcelId: String(draft.ParcelIds[0]),
          EventType: 'PickedUp',
          Time: '2026-11-23T09:00:00',
        },
        {
          EventId: 'c1',
          ParcelId: String(cancelled.ParcelIds[0]),
          EventType: 'PickedUp',
          Time: '2026-11-23T09:00:00',
        },
      ]),
    );
    expect(r.map((x) => x.Status)).toEqual(['rejected', 'rejected']);
  });

  test('the first pickup scan closes the cancel window and writes parcel events to the outbox', async () => {
    const { ShipmentId, ParcelIds } = await book();
    await scan([
      {
        EventId: `p-${ShipmentId}`,
        ParcelId: String(ParcelIds[0]),
        EventType: 'PickedUp',
        Time: '2026-11-23T09:50:00',
      },
    ]);
    const del = await ctx.app.inject({
      method: 'DELETE',
      url: `/v2/Shipment/${ShipmentId}`,
      headers: bearer(key),
    });
    expect(del.statusCode).toBe(409);
    const events = await ctx.database.db
      .select()
      .from(outboxEvents)
      .where(eq(outboxEvents.shipmentId, ShipmentId));
    expect(events.map((e) => e.type)).toContain('parcel.pickedup');
  });

  test('events out of order in time are stored and read back ordered by time', async () => {
    const { ShipmentId, ParcelIds } = await book();
    const p = String(ParcelIds[0]);
    await scan([
      {
        EventId: `o2-${p}`,
        ParcelId: p,
        EventType: 'ArrivedAtTerminal',
        Time: '2026-11-23T09:55:00',
        Terminal: 'BGO',
      },
      { EventId: `o1-${p}`, ParcelId: p, EventType: 'PickedUp', Time: '2026-11-23T08:15:00' },
    ]);
    const res = await ctx.app.inject({ url: `/v1/Shipment/${ShipmentId}/events`, headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    const body = json<{
      PickedupDate: string;
      Parcels: { ParcelId: string; Events: { EventType: string; Time: string }[] }[];
    }>(res);
    expect(body.PickedupDate).toBe('2026-11-23T08:15:00');
    expect(body.Parcels[0]?.Events.map((e) => e.EventType)).toEqual(['PickedUp', 'ArrivedAtTerminal']);
    expect(body.Parcels[1]?.Events).toEqual([]);
    expect(
      (await ctx.app.inject({ url: `/v1/Shipment/${ShipmentId}/events`, headers: bearer(otherKey) }))
        .statusCode,
    ).toBe(404);
  });

  test('a parcel is tracked by the number on its label; another customer learns nothing of it', async () => {
    const { ShipmentId, ParcelIds } = await book();
    const [first = '', second = ''] = ParcelIds.map(String);
    await scan([
      { EventId: `pt-${first}`, ParcelId: first, EventType: 'PickedUp', Time: '2026-11-23T08:20:00' },
    ]);
    const read = (parcelId: string, k = key) =>
      ctx.app.inject({ url: `/v1/Parcel/${encodeURIComponent(parcelId)}/events`, headers: bearer(k) });
    const tracked = await read(String(first));
    expect(tracked.statusCode, tracked.body).toBe(200);
    expect(json(tracked)).toEqual({
      ShipmentId,
      PickedupDate: '2026-11-23T08:20:00',
      Parcels: [
        {
          ParcelId: first,
          Events: [
            { EventId: `pt-${first}`, EventType: 'PickedUp', Time: '2026-11-23T08:20:00', Terminal: null },
          ],
        },
      ],
    });
    expect(json<{ Parcels: { Events: unknown[] }[] }>(await read(String(second))).Parcels[0]?.Events).toEqual(
      [],
    );
    // Another customer's parcel and an unknown number answer alike, naming the parcel alone.
    for (const parcelId of [first, '00370000000000000000']) {
      const res = await read(parcelId, parcelId === first ? otherKey : key);
      expect(res.statusCode).toBe(404);
      expect(json<{ detail: string }>(res).detail).toBe(`Parcel ${parcelId} was not found.`);
    }
  });

  test("an ops key that names customer numbers scans only their parcels; another's are unknown to it", async () => {
    const theirs = await ctx.app.inject({
      method: 'POST',
      url: '/Shipment/Update',
      headers: bearer(otherKey),
      payload: osloBergenBooking({ CustomerId: '2000', Parcels: [{ Weight: 1 }] }),
    });
    const [parcel] = json<Booked>(theirs).ParcelIds;
    const scanner1000 = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['ops'] });
    const time = '2026-11-23T09:30:00';
    const refused = results(
      await scan(
        [{ EventId: 'tenant-1', ParcelId: String(parcel), EventType: 'PickedUp', Time: time }],
        scanner1000,
      ),
    );
    expect(refused).toEqual([
      { EventId: 'tenant-1', Status: 'rejected', Errors: [`Parcel ${parcel} is not known.`] },
    ]);
    const [row] = await ctx.database.db
      .select()
      .from(shipments)
      .where(eq(shipments.id, json<Booked>(theirs).ShipmentId));
    expect(row?.pickedUpAt).toBeNull();
    // The carrier's own scanner key names none, and scans every customer's parcels.
    const carrier = results(
      await scan([{ EventId: 'tenant-2', ParcelId: String(parcel), EventType: 'PickedUp', Time: time }]),
    );
    expect(carrier[0]?.Status).toBe('accepted');
  });

  test('an invoiced shipment keeps its pickup date when an earlier scan arrives late', async () => {
    const { ShipmentId, ParcelIds } = await book();
    const pickUp = async (EventId: string, ParcelId: string | undefined, Time: string) =>
      results(await scan([{ EventId, ParcelId: String(ParcelId), EventType: 'PickedUp', Time }]))[0]?.Status;
    expect(await pickUp('invoiced-pickup-1', ParcelIds[0], '2026-11-23T09:45:00')).toBe('accepted');
    await ctx.database.db.update(shipments).set({ invoicedAt: NOW }).where(eq(shipments.id, ShipmentId));
    // The other parcel's scan, from the evening before publication (within the 24 hours allowed).
    expect(await pickUp('invoiced-pickup-2', ParcelIds[1], '2026-11-22T20:00:00')).toBe('accepted');
    const [row] = await ctx.database.db.select().from(shipments).where(eq(shipments.id, ShipmentId));
    expect(row?.pickupDate).toBe('2026-11-23');
    expect(row?.pickedUpAt?.toISOString()).toBe('2026-11-23T08:45:00.000Z');
  });

  test('an EventId used for another parcel is refused, not dropped as a duplicate', async () => {
    // Once a "duplicate": a scan of another parcel under a used id was silently lost.
    const [a, b] = (await book()).ParcelIds;
    const time = '2026-11-23T09:30:00';
    const first = results(
      await scan([
        { EventId: 'reuse-1', ParcelId: String(a), EventType: 'PickedUp', Time: time },
        { EventId: 'reuse-1', ParcelId: String(b), EventType: 'PickedUp', Time: time },
      ]),
    );
    expect(first.map((r) => r.Status)).toEqual(['accepted', 'rejected']);
    expect(first[1]?.Errors).toEqual([
      'EventId reuse-1 was already used for another event (a resent event repeats its ParcelId, EventType and Time).',
    ]);
    const again = async (parcel: string | undefined) =>
      results(
        await scan([{ EventId: 'reuse-1', ParcelId: String(parcel), EventType: 'PickedUp', Time: time }]),
      )[0]?.Status;
    expect(await again(b)).toBe('rejected');
    expect(await again(a)).toBe('duplicate');
  });

  test('an EventId used again for another event of the same parcel is refused, in a batch and later', async () => {
    // Once a "duplicate" when only the parcel matched: the later scan (a return) was silently lost.
    const [parcel] = (await book()).ParcelIds;
    const event = (EventType: string, Time = '2026-11-23T09:30:00') => ({
      EventId: `same-parcel-${parcel}`,
      ParcelId: String(parcel),
      EventType,
      Time,
    });
    const first = results(await scan([event('PickedUp'), event('Delivered')]));
    expect(first.map((r) => r.Status)).toEqual(['accepted', 'rejected']);
    const later = results(
      await scan([event('PickedUp'), event('PickedUp', '2026-11-23T09:31:00'), event('ReturnedToSender')]),
    );
    expect(later.map((r) => r.Status)).toEqual(['duplicate', 'rejected', 'rejected']);
    // The same instant written with an offset is the same event.
    expect(results(await scan([event('PickedUp', '2026-11-23T08:30:00Z')]))[0]?.Status).toBe('duplicate');
  });

  test('a parcel first scanned on its way (its pickup scan missed) counts as picked up then', async () => {
    // Once neither cancel-proof nor invoiceable: only a PickedUp scan set the pickup.
    const { ShipmentId, ParcelIds } = await book();
    const [a, b] = ParcelIds.map(String);
    const statuses = results(
      await scan([
        { EventId: `implied-${a}`, ParcelId: String(a), EventType: 'Delivered', Time: '2026-11-23T09:40:00' },
        {
          EventId: `implied-${b}`,
          ParcelId: String(b),
          EventType: 'ArrivedAtTerminal',
          Time: '2026-11-23T09:20:00',
        },
      ]),
    );
    expect(statuses.map((r) => r.Status)).toEqual(['accepted', 'accepted']);
    const shipment = async () =>
      (await ctx.database.db.select().from(shipments).where(eq(shipments.id, ShipmentId)))[0];
    expect((await shipment())?.pickedUpAt?.toISOString()).toBe('2026-11-23T08:20:00.000Z');
    expect((await shipment())?.pickupDate).toBe('2026-11-23');
    const del = await ctx.app.inject({
      method: 'DELETE',
      url: `/v2/Shipment/${ShipmentId}`,
      headers: bearer(key),
    });
    expect(del.statusCode).toBe(409);
    // Scans arriving out of order: the earliest scan of any kind is the pickup, whatever the order
    // they come in (b: 09:00, though it came second; a: its PickedUp at 09:05).
    await scan([
      {
        EventId: `late-pickup-${a}`,
        ParcelId: String(a),
        EventType: 'PickedUp',
        Time: '2026-11-23T09:05:00',
      },
      {
        EventId: `late-other-${b}`,
        ParcelId: String(b),
        EventType: 'OutForDelivery',
        Time: '2026-11-23T09:00:00',
      },
    ]);
    expect((await shipment())?.pickedUpAt?.toISOString()).toBe('2026-11-23T08:00:00.000Z');
    // b's pickup scan found at last, later than a scan further on: the carrier had b at 09:00.
    await scan([
      { EventId: `pickup-${b}`, ParcelId: String(b), EventType: 'PickedUp', Time: '2026-11-23T09:10:00' },
    ]);
    expect((await shipment())?.pickedUpAt?.toISOString()).toBe('2026-11-23T08:00:00.000Z');
    const listed = json<{ ShipmentId: string; PickedupDate: string; IsSplitted: boolean }[]>(
      await list('postalcode=0154&customerid=1000&pickupFromDate=2026-11-23&pickupToDate=2026-11-23'),
    ).find((r) => r.ShipmentId === ShipmentId);
    expect(listed).toMatchObject({ PickedupDate: '2026-11-23T09:00:00', IsSplitted: false });
  });

  test('a repeat in the batch of an event refused in the write is refused too, never "duplicate"', async () => {
    // Once the repeat said "duplicate" (stored) while its first copy was refused: the event was lost.
    const [parcel] = (await book()).ParcelIds;
    const event = (EventType: string, Time: string) => ({
      EventId: `refused-repeat-${parcel}`,
      ParcelId: String(parcel),
      EventType,
      Time,
    });
    expect(results(await scan([event('Delivered', '2026-11-23T09:55:00')]))[0]?.Status).toBe('accepted');
    const again = results(
      await scan([
        event('ReturnedToSender', '2026-11-23T09:58:00'),
        event('ReturnedToSender', '2026-11-23T09:58:00'),
      ]),
    );
    expect(again.map((r) => r.Status)).toEqual(['rejected', 'rejected']);
    expect(again[1]?.Errors).toEqual(again[0]?.Errors);
  });

  test('a batch over 1000 is a 400; a key without the ops scope is 403', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => ({
      EventId: `x${i}`,
      ParcelId: 'X',
      EventType: 'PickedUp',
      Time: '2026-11-23T09:00:00',
    }));
    expect((await scan(many)).statusCode).toBe(400);
    expect((await scan(many.slice(0, 1), key)).statusCode).toBe(403);
  });
});

describe('GET /v1/shipment/list', () => {
  test('every field, the pickup window, the first pickup scan and splits', async () => {
    const { ShipmentId, ParcelIds } = await book({ PickupZip: '0155', PickupPlace: 'OSLO' });
    const [a, b] = ParcelIds as [string, string];
    let rows = json<Record<string, unknown>[]>(
      await list('postalcode=0155&customerid=1000&pickupFromDate=2026-11-23&pickupToDate=2026-11-23'),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual({
      ShipmentId,
      RecipientName: 'Kari Nordmann',
      RecipientAddress1: 'Bryggen 1',
      RecipientAddress2: 'Inngang B',
      RecipientZip: '5003',
      RecipientPlace: 'BERGEN',
      PickupName: 'Demo Kunde AS',
      PickupAddress: 'Karl Johans gate 1',
      PickupZip: '0155',
      PickupPlace: 'OSLO',
      UnitType: 'KL',
      PickupDate: '2026-11-23T00:00:00',
      PickupTimeFrom: '2026-11-23T08:00:00',
      PickupTimeTo: '2026-11-23T16:00:00',
      PickedupDate: null,
      NumberOfUnits: 2,
      NumberOfParcels: 2,
      CustomerId: 1000,
      Weight: 6.5,
      IsSplitted: false,
    });

    // One parcel picked up: split until the other follows.
    await scan([{ EventId: `l1-${a}`, ParcelId: a, EventType: 'PickedUp', Time: '2026-11-23T09:10:00' }]);
    rows = json(
      await list('postalcode=155&customerid=1000&pickupFromDate=2026-11-23T00:00:00&pickupToDate=2026-11-23'),
    );
    expect(rows[0]).toMatchObject({ PickedupDate: '2026-11-23T09:10:00', IsSplitted: true });
    await scan([{ EventId: `l2-${b}`, ParcelId: b, EventType: 'PickedUp', Time: '2026-11-23T09:12:00' }]);
    rows = json(
      await list('postalcode=0155&customerid=1000&pickupFromDate=2026-11-23&pickupToDate=2026-11-23'),
    );
    expect(rows[0]).toMatchObject({ IsSplitted: false });
  });

  test('parcels picked up in two visits on one day are split; in one visit of 30 minutes, not', async () => {
    const twice = await book({ PickupZip: '0159', PickupPlace: 'OSLO' });
    const once = await book({ PickupZip: '0159', PickupPlace: 'OSLO' });
    const pickups = (parcels: string[], times: string[]) =>
      scan(
        parcels.map((p, i) => ({
          EventId: `v-${p}`,
          ParcelId: p,
          EventType: 'PickedUp',
          Time: times[i] ?? '',
        })),
      );
    await pickups(twice.ParcelIds, ['2026-11-23T09:00:00', '2026-11-23T15:00:00']);
    await pickups(once.ParcelIds, ['2026-11-23T09:00:00', '2026-11-23T09:30:00']);
    const rows = json<{ ShipmentId: string; IsSplitted: boolean }[]>(
      await list('postalcode=0159&customerid=1000&pickupFromDate=2026-11-23&pickupToDate=2026-11-23'),
    );
    expect(Object.fromEntries(rows.map((r) => [r.ShipmentId, r.IsSplitted]))).toEqual({
      [twice.ShipmentId]: true,
      [once.ShipmentId]: false,
    });
  });

  test('filters: zip, inclusive interval, published only, own customer only', async () => {
    const inside = await book({ PickupZip: '0157' });
    await book({ PickupZip: '0157', ShipmentStatus: 'Draft' });
    await book({ PickupZip: '0158' });
    const q = (from: string, to: string) =>
      `postalcode=0157&customerid=1000&pickupFromDate=${from}&pickupToDate=${to}`;
    expect(
      json<{ ShipmentId: string }[]>(await list(q('2026-11-23', '2026-11-23'))).map((r) => r.ShipmentId),
    ).toEqual([inside.ShipmentId]);
    expect(json<unknown[]>(await list(q('2026-11-24', '2026-11-30')))).toEqual([]);
    expect((await list(q('2026-11-23', '2026-11-23'), otherKey)).statusCode).toBe(403);
  });

  test('bad input is a 400 naming the field', async () => {
    const bad = async (query: string, field: string) => {
      const res = await list(query);
      expect(res.statusCode).toBe(400);
      expect(Object.keys(json<{ errors: object }>(res).errors)).toContain(field);
    };
    await bad(
      'postalcode=0157&customerid=1000&pickupFromDate=2026-11-30&pickupToDate=2026-11-23',
      'pickupToDate',
    );
    await bad(
      'postalcode=0157&customerid=1000&pickupFromDate=2026-01-01&pickupToDate=2026-06-01',
      'pickupToDate',
    );
    await bad(
      'postalcode=0157&customerid=abc&pickupFromDate=2026-11-23&pickupToDate=2026-11-23',
      'customerid',
    );
    await bad(
      'postalcode=0157&customerid=1000&pickupFromDate=2026-11-23garbage&pickupToDate=2026-11-23',
      'pickupFromDate',
    );
    await bad(
      'postalcode=ab&customerid=1000&pickupFromDate=2026-11-23&pickupToDate=2026-11-23',
      'postalcode',
    );
    await bad(
      'postalcode=0157&customerid=1000&pickupFromDate=2026-13-01&pickupToDate=2026-11-23',
      'pickupFromDate',
    );
    // 31 November with a zone was once read as 1 December.
    await bad(
      'postalcode=0157&customerid=1000&pickupFromDate=2026-11-30&pickupToDate=2026-11-31T00:00:00Z',
      'pickupToDate',
    );
  });

  test('every broken rule in one 400, the schema’s and the interval’s together', async () => {
    const res = await list(
      'postalcode=0157&customerid=abc&pickupFromDate=2026-12-30&pickupToDate=2026-11-30',
    );
    expect(res.statusCode).toBe(400);
    expect(Object.keys(json<{ errors: object }>(res).errors).sort()).toEqual(['customerid', 'pickupToDate']);
  });
});

describe('sandbox simulator', () => {
  test('advances a shipment through pickup, terminal, delivery', async () => {
    const { ShipmentId } = await book();
    const steps: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/sandbox/shipments/${ShipmentId}/advance`,
        headers: bearer(key),
      });
      expect(res.statusCode).toBe(200);
      const body = json<{ EventType: string; Results: { Status: string }[] }>(res);
      expect(body.Results.every((r) => r.Status === 'accepted')).toBe(true);
      steps.push(body.EventType);
    }
    expect(steps).toEqual(['PickedUp', 'ArrivedAtTerminal', 'OutForDelivery', 'Delivered']);
    expect(
      (
        await ctx.app.inject({
          method: 'POST',
          url: `/sandbox/shipments/${ShipmentId}/advance`,
          headers: bearer(key),
        })
      ).statusCode,
    ).toBe(409);
  });

  test('two advances at once make the step once: the other is a 409, not a refused scan', async () => {
    const { ShipmentId } = await book();
    const advance = () =>
      ctx.app.inject({
        method: 'POST',
        url: `/sandbox/shipments/${ShipmentId}/advance`,
        headers: bearer(key),
      });
    const answers = await Promise.all([advance(), advance(), advance()]);
    const statuses = answers.map((a) => a.statusCode).sort();
    expect(statuses[0]).toBe(200);
    for (const a of answers.filter((x) => x.statusCode === 200)) {
      const body = json<{ Results: { Status: string }[] }>(a);
      expect(
        body.Results.every((r) => r.Status === 'accepted'),
        a.body,
      ).toBe(true);
    }
    for (const a of answers.filter((x) => x.statusCode !== 200)) {
      expect(a.statusCode).toBe(409);
      expect(json<{ detail: string }>(a).detail).toMatch(/by another request at the same time/);
    }
  });

  test('brings the parcels furthest behind level first: one scanned apart is picked up and delivered too', async () => {
    const { ShipmentId, ParcelIds } = await book();
    const [ahead, behind] = ParcelIds as [string, string];
    const real = (EventType: string) => ({
      EventId: `apart-${ahead}-${EventType}`,
      ParcelId: ahead,
      EventType,
      Time: '2026-11-23T09:30:00',
    });
    expect(results(await scan([real('PickedUp'), real('Delivered')])).map((r) => r.Status)).toEqual([
      'accepted',
      'accepted',
    ]);
    const steps: [string, number][] = [];
    for (;;) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/sandbox/shipments/${ShipmentId}/advance`,
        headers: bearer(key),
      });
      if (res.statusCode === 409) break;
      const body = json<{ EventType: string; Results: { Status: string }[] }>(res);
      steps.push([body.EventType, body.Results.length]);
    }
    // The parcel picked up and delivered by real scans still lacks the two scans between.
    expect(steps).toEqual([
      ['PickedUp', 1],
      ['ArrivedAtTerminal', 2],
      ['OutForDelivery', 2],
      ['Delivered', 1],
    ]);
    const tracking = json<{ Parcels: { ParcelId: string; Events: { EventType: string }[] }[] }>(
      await ctx.app.inject({ url: `/v1/Shipment/${ShipmentId}/events`, headers: bearer(key) }),
    );
    const lives = tracking.Parcels.map((p) => [p.ParcelId, p.Events.map((e) => e.EventType).sort()]);
    const life = ['ArrivedAtTerminal', 'Delivered', 'OutForDelivery', 'PickedUp'];
    expect(lives).toEqual([
      [ahead, life],
      [behind, life],
    ]);
  });

  test('needs the booking scope: it changes the shipment (no cancel after pickup)', async () => {
    const { ShipmentId } = await book();
    const reader = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['shipments'] });
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/sandbox/shipments/${ShipmentId}/advance`,
      headers: bearer(reader),
    });
    expect(res.statusCode).toBe(403);
  });

  test('is refused in production', async () => {
    const prod = await buildTestApp({ env: { NODE_ENV: 'production' } });
    try {
      const k = await prod.keyFor({ scopes: ['booking'] });
      const res = await prod.app.inject({
        method: 'POST',
        url: '/sandbox/shipments/70900010000000019/advance',
        headers: bearer(k),
      });
      expect(res.statusCode).toBe(404);
    } finally {
      await prod.close();
    }
  });
});

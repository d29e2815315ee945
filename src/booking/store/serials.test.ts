import { afterAll, beforeAll, expect, test } from 'vitest';
import { bearer, buildTestApp, type TestContext } from '../../../test/helpers';
import { countRoundTrips } from '../../../test/round-trips';
import type { DbOrTx } from '../../db/client';
import { gsin, sscc } from '../../lib/gs1';
import { SERIAL_BLOCK } from '../tables';
import { createSerialSource, DRAW_AHEAD } from './serials';

// Serials come from the sequences a block at a time (store/serials.ts): unique across processes,
// one database statement per block, and the rest of a block left unused when a process stops.

let ctx: TestContext;
beforeAll(async () => {
  ctx = await buildTestApp();
});
afterAll(() => ctx.close());

test('two processes drawing serials at once never get the same number, and a block is drawn once', async () => {
  const a = createSerialSource(ctx.config.gs1Prefix);
  const b = createSerialSource(ctx.config.gs1Prefix);
  const db = ctx.database.db;
  const parcels: bigint[] = [];
  const shipments: bigint[] = [];
  for (let i = 0; i < 30; i++) {
    const [x, y] = await Promise.all([a.take(db, true, 7), b.take(db, i % 2 === 0, 40)]);
    parcels.push(...x.parcels, ...y.parcels);
    shipments.push(...[x.shipment, y.shipment].filter((s): s is bigint => s !== null));
  }
  expect(parcels).toHaveLength(30 * 47);
  expect(new Set(parcels.map(String)).size).toBe(parcels.length);
  expect(shipments).toHaveLength(45);
  expect(new Set(shipments.map(String)).size).toBe(shipments.length);

  // Within a block, a source answers from memory.
  const before = await ctx.database.db.execute('select last_value from parcel_serial_seq');
  await a.take(db, false, 1);
  const after = await ctx.database.db.execute('select last_value from parcel_serial_seq');
  expect((after as unknown as { rows: unknown[] }).rows).toEqual(
    (before as unknown as { rows: unknown[] }).rows,
  );
});

test('a take larger than a block gets all it asks, distinct and unused, and the next take goes on from there', async () => {
  const source = createSerialSource(ctx.config.gs1Prefix);
  const first = await source.take(ctx.database.db, false, SERIAL_BLOCK * 2 + 5);
  expect(first.parcels).toHaveLength(SERIAL_BLOCK * 2 + 5);
  const next = await source.take(ctx.database.db, false, 10);
  const all = [...first.parcels, ...next.parcels].map(String);
  expect(new Set(all).size).toBe(all.length);
  // The rest of the third block is used next, in order.
  expect(next.parcels[0]).toBe((first.parcels.at(-1) ?? 0n) + 1n);
});

test('a run of 999-parcel takes draws ahead: one statement for every DRAW_AHEAD + 1 takes, no number lost', async () => {
  const source = createSerialSource(ctx.config.gs1Prefix);
  const takes = 4 * (DRAW_AHEAD + 1);
  const taken: bigint[] = [];
  const { count, statements } = await countRoundTrips(ctx.database, async () => {
    for (let i = 0; i < takes; i++) taken.push(...(await source.take(ctx.database.db, false, 999)).parcels);
  });
  // Without drawing ahead every take but the first few would draw a block of its own.
  expect(count, statements.join('\n')).toBe(4);
  expect(statements.every((s) => s.includes('nextval'))).toBe(true);
  expect(new Set(taken.map(String)).size).toBe(takes * 999);
  // One source on an otherwise idle sequence draws adjacent blocks and hands out every number of them,
  // in order.
  expect(taken.every((n, i) => i === 0 || n === (taken[i - 1] ?? 0n) + 1n)).toBe(true);
});

test('blocks drawn by concurrent takes are handed out lowest first, whichever draw answered first', async () => {
  // A database whose answers arrive in the order this test chooses: the later draw answers first
  // with the higher blocks, as a busy pool can.
  const answers: ((blocks: number[]) => void)[] = [];
  const db = {
    execute: () =>
      new Promise((resolve) =>
        answers.push((blocks) => resolve({ rows: blocks.map((v) => ({ v: String(v) })) })),
      ),
  } as unknown as DbOrTx;
  const source = createSerialSource(ctx.config.gs1Prefix);
  const a = source.take(db, false, 999);
  const b = source.take(db, false, 999);
  const blocksFrom = (start: number) => Array.from({ length: 4 }, (_, i) => start + i * SERIAL_BLOCK);
  answers[1]?.(blocksFrom(100_000));
  await b;
  answers[0]?.(blocksFrom(10_000));
  expect((await a).parcels[0]).toBe(10_000n);
  // The lowest number left is next, not the rest of the block the first answer brought.
  expect((await source.take(db, false, 1)).parcels).toEqual([10_999n]);
});

test('a block is drawn without the numbers of it a client booked already', async () => {
  // CONTRACT §5: a client may choose an id under any GS1 prefix, the carrier's included.
  const prefix = ctx.config.gs1Prefix;
  const db = ctx.database.db;
  const nextDraw = async (sequence: string) => {
    const [row] = (
      (await db.execute(`select last_value, is_called from ${sequence}`)) as unknown as {
        rows: { last_value: string | number; is_called: boolean }[];
      }
    ).rows;
    const last = BigInt(row?.last_value ?? 0);
    return row?.is_called ? last + BigInt(SERIAL_BLOCK) : last;
  };
  const shipmentBlock = await nextDraw('shipment_serial_seq');
  const parcelBlock = await nextDraw('parcel_serial_seq');
  const key = await ctx.keyFor({ scopes: ['booking'] });
  const booked = await ctx.app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: bearer(key),
    payload: {
      ShipmentStatus: 'Draft',
      CustomerId: '1000',
      ProductCode: '43',
      DeliveryType: 1,
      ShipmentId: gsin(prefix, shipmentBlock),
      Parcels: [
        { ParcelId: sscc(prefix, parcelBlock), Weight: 1 },
        { ParcelId: sscc(prefix, parcelBlock + 2n), Weight: 1 },
      ],
    },
  });
  expect(booked.statusCode, booked.body).toBe(201);
  const taken = await createSerialSource(prefix).take(db, true, 3);
  expect(taken.shipment).toBe(shipmentBlock + 1n);
  expect(taken.parcels).toEqual([parcelBlock + 1n, parcelBlock + 3n, parcelBlock + 4n]);
});

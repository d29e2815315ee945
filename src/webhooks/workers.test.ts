// Several workers against one PostgreSQL. PGlite is a single connection in one process, so this
// file runs only in the PostgreSQL project (TEST_DATABASE_URL set).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDatabase, urlOfDatabase } from '../../test/helpers';
import { type Database, openDatabase } from '../db/client';
import { type DomainEvent, emitEvents } from '../events/outbox';
import { createDeliveryEngine, type DeliveryEngine } from './delivery';
import { send } from './send';
import { webhookAttempts, webhookDeliveries } from './tables';
import { insertWebhook, type Receiver, rowsOf, startReceiver, until } from './test-support';
import { startWebhookWorker } from './worker';

const onPostgres = process.env.KOLLI_TEST_DB === 'postgres';

describe.skipIf(!onPostgres)('two workers against one PostgreSQL', () => {
  let first: Database & { dispose(): Promise<void> };
  let second: Database;
  let receiver: Receiver;
  const failedOnce = new Set<string>();

  beforeAll(async () => {
    first = await createTestDatabase();
    // A second connection pool to the same database, as a second process has.
    second = await openDatabase({ url: await urlOfDatabase(first.db), dataDir: null, poolSize: 10 });
    // Every fourth delivery fails its first attempt, so retries are shared out too.
    receiver = await startReceiver((r) => {
      const id = String(r.headers['webhook-id']);
      if (r.path !== '/lease' && id.charCodeAt(0) % 4 === 0 && !failedOnce.has(id)) {
        failedOnce.add(id);
        return { status: 500 };
      }
      return { status: 200 };
    });
  });
  afterAll(async () => {
    await receiver?.close();
    await second?.close();
    await first?.dispose();
  });

  test('each attempt is sent exactly once, and both share the work', async () => {
    const customers = ['4001', '4002', '4003', '4004', '4005', '4006'];
    for (const customerNr of customers) {
      for (let i = 0; i < 3; i++)
        await insertWebhook(first.db, { customerNr, url: `${receiver.url}/${customerNr}/${i}` });
    }
    const sent = { a: 0, b: 0 };
    const engineFor = (db: Database, name: 'a' | 'b'): DeliveryEngine =>
      createDeliveryEngine({
        db: db.db,
        allowPrivate: true,
        retryScheduleMs: [100, 100],
        jitter: 0,
        owner: name,
        send: (options) => {
          sent[name] += 1;
          return send(options);
        },
      });
    const a = engineFor(first, 'a');
    const b = engineFor(second, 'b');
    const workers = [
      startWebhookWorker({ engine: a, pollMs: 10, concurrency: 8 }),
      startWebhookWorker({ engine: b, pollMs: 10, concurrency: 8 }),
    ];
    try {
      // Events keep arriving while the workers run: 6 customers × 5 shipments × 3 events.
      for (let round = 0; round < 3; round++) {
        const events: DomainEvent[] = [];
        for (const customerNr of customers) {
          for (let s = 0; s < 5; s++) {
            events.push({
              type:
                round === 0 ? 'shipment.created' : round === 1 ? 'shipment.published' : 'parcel.delivered',
              customerNr,
              shipmentId: `W${customerNr}-${s}`,
              parcelIds: [`W${customerNr}-${s}-1`],
            });
          }
        }
        await first.db.transaction((tx) => emitEvents(tx, events));
        await new Promise((r) => setTimeout(r, 30));
      }
      const expected = customers.length * 3 * 5 * 3;
      await until(async () => {
        const [row] = await rowsOf<{ done: number }>(
          first.db,
          sql`select count(*)::int as done from webhook_deliveries where status = 'succeeded'`,
        );
        return row?.done === expected;
      }, 60_000);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      a.close();
      b.close();
    }

    const deliveries = await first.db.select().from(webhookDeliveries);
    const attempts = await first.db.select().from(webhookAttempts);
    expect(deliveries).toHaveLength(270);
    // What the target received, per webhook-id, equals the attempts made: none sent twice.
    const receivedBy = new Map<string, number>();
    for (const r of receiver.received) {
      const id = String(r.headers['webhook-id']);
      receivedBy.set(id, (receivedBy.get(id) ?? 0) + 1);
    }
    for (const d of deliveries) {
      const own = attempts.filter((x) => x.deliveryId === d.id).map((x) => x.attempt);
      expect(own.sort()).toEqual(Array.from({ length: d.attempts }, (_, i) => i + 1));
      expect(receivedBy.get(d.id)).toBe(d.attempts);
    }
    expect(receiver.received).toHaveLength(attempts.length);
    expect(attempts.length).toBe(270 + failedOnce.size);
    expect(failedOnce.size).toBeGreaterThan(0);
    expect(sent.a + sent.b).toBe(attempts.length);
    expect(sent.a).toBeGreaterThan(0);
    expect(sent.b).toBeGreaterThan(0);

    // Per registration and shipment, the first successful receptions follow the event order.
    const order = new Map<string, string[]>();
    const seen = new Set<string>();
    for (const r of receiver.received) {
      const id = String(r.headers['webhook-id']);
      if (failedOnce.has(id) && !seen.has(id)) {
        seen.add(id);
        continue;
      }
      const body = JSON.parse(r.body) as { type: string; data: { ShipmentId: string } };
      const key = `${r.path} ${body.data.ShipmentId}`;
      order.set(key, [...(order.get(key) ?? []), body.type]);
    }
    for (const types of order.values()) {
      expect(types).toEqual(['shipment.created', 'shipment.published', 'parcel.delivered']);
    }
  });

  test('a claim held by a dead worker’s lease is taken over by the other once the lease passes', async () => {
    const w = await insertWebhook(first.db, { customerNr: '4100', url: `${receiver.url}/lease` });
    await first.db.transaction((tx) =>
      emitEvents(tx, [{ type: 'shipment.created', customerNr: '4100', shipmentId: 'L1' }]),
    );
    const dead = createDeliveryEngine({ db: first.db, allowPrivate: true, leaseMs: 500, owner: 'dead' });
    const alive = createDeliveryEngine({ db: second.db, allowPrivate: true, owner: 'alive' });
    try {
      await dead.fanOut();
      const [claimed] = await dead.claim(10);
      expect(claimed?.webhookId).toBe(w.id);
      expect(await alive.claim(10)).toEqual([]);
      await new Promise((r) => setTimeout(r, 550));
      const [again] = await alive.claim(10);
      expect(again).toMatchObject({ id: claimed?.id, attempt: 2 });
      if (!again) throw new Error('not taken over');
      expect(await alive.attempt(again)).toMatchObject({ succeeded: true });
      expect(receiver.received.filter((r) => r.path === '/lease')).toHaveLength(1);
    } finally {
      dead.close();
      alive.close();
    }
  });
  test('registrations deleted while their events fan out and their attempts are recorded: nothing fails', async () => {
    // A delete takes the registration, then its deliveries by cascade; the worker once took a
    // delivery, then the registration (a deadlock, the delete's 500), and fanned out to a
    // registration deleted after it matched (a foreign-key violation, the round failed).
    const slow = await startReceiver(() => ({ status: 200, delayMs: 5 }));
    const problems: unknown[] = [];
    const log = {
      info: () => {},
      warn: (obj: unknown) => problems.push(obj),
      error: (obj: unknown) => problems.push(obj),
    };
    const engine = createDeliveryEngine({ db: first.db, allowPrivate: true, jitter: 0, owner: 'deletes' });
    const worker = startWebhookWorker({ engine, pollMs: 5, concurrency: 8, log });
    try {
      for (let round = 0; round < 6; round++) {
        const registrations = await Promise.all(
          Array.from({ length: 5 }, (_, i) =>
            insertWebhook(first.db, { customerNr: '4300', url: `${slow.url}/${round}/${i}` }),
          ),
        );
        const events: DomainEvent[] = Array.from({ length: 20 }, (_, s) => ({
          type: 'shipment.created',
          customerNr: '4300',
          shipmentId: `D${round}-${s}`,
          parcelIds: [`D${round}-${s}-1`],
        }));
        await first.db.transaction((tx) => emitEvents(tx, events));
        await new Promise((r) => setTimeout(r, 20 + round * 10));
        await Promise.all(
          registrations.map((w) => second.db.execute(sql`delete from webhooks where id = ${w.id}`)),
        );
      }
      // A test of a registration being deleted finds it gone, and inserts nothing.
      for (let round = 0; round < 20; round++) {
        const w = await insertWebhook(first.db, { customerNr: '4300', url: `${slow.url}/test` });
        const [claimed] = await Promise.all([
          engine.claimTest(w),
          second.db.execute(sql`delete from webhooks where id = ${w.id}`),
        ]);
        if (typeof claimed === 'object') await engine.attempt(claimed);
        else expect(['gone', 'busy']).toContain(claimed);
      }
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await worker.stop();
      engine.close();
      await slow.close();
    }
    expect(problems).toEqual([]);
  });
});

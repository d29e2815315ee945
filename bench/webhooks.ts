// `npm run bench -- webhooks`: what claiming costs with a dead target's large backlog, what the
// fan-out costs for a customer with many per-parcel registrations, and end-to-end delivery
// throughput to a local receiver. DATABASE_URL = an empty scratch PostgreSQL database; without it a
// fresh embedded PGlite.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../src/db/client';
import { emitEvents } from '../src/events/outbox';
import { createDeliveryEngine } from '../src/webhooks/delivery';
import { startReceiver } from '../src/webhooks/test-support';
import { startWebhookWorker } from '../src/webhooks/worker';
import { median } from './_stats';

const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 100_000);
const REGISTRATIONS = 2000;
const PARCEL_REGISTRATIONS = 10_000;

const database = await openDatabase({
  url: process.env.DATABASE_URL || null,
  dataDir: process.env.DATABASE_URL ? null : mkdtempSync(join(tmpdir(), 'kolli-bench-wh-')),
  poolSize: 20,
});
await database.migrate();
const { db } = database;
const time = async (work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

// Throughput: 50 registrations × 40 events to a local receiver answering at once.
const receiver = await startReceiver();
for (let i = 0; i < 50; i++) {
  await db.execute(sql`
    insert into webhooks (id, customer_nr, event_value, event_value_type, url, secret, expires, created_at)
    values (gen_random_uuid(), ${`t${i}`}, ${`t${i}`}, 3, ${`${receiver.url}/${i}`}, 's', now() + interval '1 day', now() - interval '1 minute')`);
}
const events = Array.from({ length: 50 }, (_, i) =>
  Array.from({ length: 40 }, (_, j) => ({
    type: 'shipment.created' as const,
    customerNr: `t${i}`,
    shipmentId: `T${i}-${j}`,
  })),
).flat();
await db.transaction((tx) => emitEvents(tx, events));
const worker = startWebhookWorker({
  engine: createDeliveryEngine({ db, allowPrivate: true }),
  pollMs: 20,
  concurrency: 64,
});
const deliverMs = await time(() => receiver.waitFor(events.length, 300_000));
await worker.stop();
await receiver.close();

await db.execute(sql`delete from webhooks`);

// 2000 registrations with one due delivery each, and a dead one with a large due backlog and an
// attempt in flight (a hanging target).
await db.execute(sql`
  insert into webhooks (id, customer_nr, event_value, event_value_type, url, secret, expires)
  select gen_random_uuid(), 'c' || g, 'c' || g, 3, 'http://127.0.0.1:9/x', 's', now() + interval '30 days'
    from generate_series(1, ${REGISTRATIONS}) g`);
await db.execute(sql`
  insert into webhook_deliveries (id, webhook_id, shipment_id, type, body, next_attempt_at)
  select gen_random_uuid(), id, 'S-' || id, 'shipment.created', '{}', now() - interval '1 minute' from webhooks`);
await db.execute(sql`
  insert into webhooks (id, customer_nr, event_value, event_value_type, url, secret, expires)
  values ('00000000-0000-4000-8000-000000000001', 'dead', 'dead', 3, 'http://127.0.0.1:9/dead', 's', now() + interval '30 days')`);
await db.execute(sql`
  insert into webhook_deliveries (id, webhook_id, shipment_id, type, body, next_attempt_at, lease_until, lease_owner)
  select gen_random_uuid(), '00000000-0000-4000-8000-000000000001', 'D-' || g, 'shipment.created', '{}',
         now() - interval '2 minutes' + g * interval '1 millisecond',
         case when g = 1 then now() + interval '1 hour' end, case when g = 1 then 'hanging' end
    from generate_series(1, ${BACKLOG}) g`);
await db.execute(sql`analyze`);

const engine = createDeliveryEngine({ db, allowPrivate: true });
const claimTimes: number[] = [];
for (let i = 0; i < 15; i++) {
  let ids: string[] = [];
  claimTimes.push(
    await time(async () => {
      ids = (await engine.claim(32)).map((c) => c.id);
    }),
  );
  // Give the claims back, so every round sees the same state.
  for (const id of ids) {
    await db.execute(
      sql`update webhook_deliveries set lease_until = null, lease_owner = null, attempts = attempts - 1 where id = ${id}`,
    );
  }
}

// Fan-out: 200 events of a customer with 10 000 per-parcel registrations and one customer-wide one.
await db.execute(sql`
  insert into webhooks (id, customer_nr, event_value, event_value_type, url, secret, expires, created_at)
  select gen_random_uuid(), 'many', 'P' || g, 1, 'http://127.0.0.1:9/p', 's', now() + interval '30 days', now() - interval '1 hour'
    from generate_series(1, ${PARCEL_REGISTRATIONS}) g
  union all
  select gen_random_uuid(), 'many', 'many', 3, 'http://127.0.0.1:9/c', 's', now() + interval '30 days', now() - interval '1 hour'`);
await db.execute(sql`analyze webhooks`);
const fanOutTimes: number[] = [];
for (let round = 0; round < 5; round++) {
  await db.transaction((tx) =>
    emitEvents(
      tx,
      Array.from({ length: 200 }, (_, i) => ({
        type: 'parcel.pickedup' as const,
        customerNr: 'many',
        shipmentId: `SM${round}-${i}`,
        parcelIds: [`P${i * 50 + 1}`],
      })),
    ),
  );
  fanOutTimes.push(await time(() => engine.fanOut(200)));
}
const fanOutMs = median(fanOutTimes);
engine.close();

console.log(`webhooks on ${database.kind}`);
console.log(
  `  claim(32), ${REGISTRATIONS} registrations due + a backlog of ${BACKLOG} behind a hanging attempt: median ${median(claimTimes).toFixed(1)} ms`,
);
console.log(
  `  fan-out of 200 events (400 deliveries), customer with ${PARCEL_REGISTRATIONS} parcel registrations: median ${fanOutMs.toFixed(1)} ms`,
);
console.log(
  `  ${events.length} deliveries to 50 registrations on a local receiver: ${deliverMs.toFixed(0)} ms (${((events.length / deliverMs) * 1000).toFixed(0)} per second)`,
);
await database.close();

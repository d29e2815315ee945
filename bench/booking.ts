// Booking benchmark (issue 5): median/p95 of a 999-parcel booking beside a raw multi-row insert of
// the same rows, and throughput of 1-parcel bookings with 10 concurrent clients.
// PGlite by default; DATABASE_URL=postgres://… for PostgreSQL (use a scratch database).
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { parcels, shipments } from '../src/booking/tables';
import { benchServer, median, percentile } from './_setup';

const RUNS = Number(process.env.BENCH_RUNS ?? 25);
const { app, database, key, kind } = await benchServer(['booking', 'shipments']);

const shipment = (n: number, reference: string) => ({
  ShipmentStatus: 'Published',
  CustomerId: '1000',
  ProductCode: '43',
  DeliveryType: 1,
  SenderReference: reference,
  PickupCompanyName: 'Bench AS',
  PickupAddress: 'Karl Johans gate 1',
  PickupZip: '0154',
  PickupPlace: 'OSLO',
  RecipientCompanyName: 'Mottaker AS',
  RecipientAddress: 'Bryggen 1',
  RecipientZip: '5003',
  RecipientPlace: 'BERGEN',
  Parcels: Array.from({ length: n }, (_, i) => ({ Weight: 1 + (i % 20), Length: 40, Width: 30, Height: 20 })),
});

async function timeBooking(): Promise<number> {
  const payload = JSON.stringify(shipment(999, 'bench-999'));
  const started = performance.now();
  const res = await app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload,
  });
  const elapsed = performance.now() - started;
  if (res.statusCode !== 201) throw new Error(`booking failed: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return elapsed;
}

let rawSerial = 0;
/** The same rows written with a plain multi-row INSERT … VALUES (what an ORM emits), in one transaction. */
async function timeRawInsert(): Promise<number> {
  const id = `RAW${String(++rawSerial).padStart(14, '0')}`;
  const started = performance.now();
  await database.db.transaction(async (tx) => {
    await tx.insert(shipments).values({
      id,
      customerNr: '1000',
      status: 2,
      productCode: '43',
      deliveryType: 1,
      services: [],
      unitCode: 'KL',
      pickupZip: '0154',
      addresses: { Pickup: {} as never, Recipient: {} as never, Return: null, PickupPoint: null },
    });
    await tx.insert(parcels).values(
      Array.from({ length: 999 }, (_, i) => ({
        shipmentId: id,
        parcelId: `${id}-${i}`,
        seq: i + 1,
        weightG: 1000 + i,
        lengthCm: 40,
        heightCm: 20,
        widthCm: 30,
        volumeCm3: null,
      })),
    );
  });
  return performance.now() - started;
}

for (let i = 0; i < 3; i++) {
  await timeBooking();
  await timeRawInsert();
}
const booking: number[] = [];
const raw: number[] = [];
for (let i = 0; i < RUNS; i++) {
  booking.push(await timeBooking());
  raw.push(await timeRawInsert());
}

await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
const throughput = await autocannon({
  url: `http://127.0.0.1:${port}/Shipment/Update`,
  method: 'POST',
  connections: 10,
  duration: Number(process.env.BENCH_SECONDS ?? 10),
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: JSON.stringify(shipment(1, 'bench-1')),
});

const f = (x: number) => x.toFixed(1);
console.log(`database: ${kind}`);
console.log(
  `999-parcel booking: median ${f(median(booking))} ms, p95 ${f(percentile(booking, 95))} ms (${RUNS} runs)`,
);
console.log(`raw multi-row insert of the same rows: median ${f(median(raw))} ms`);
console.log(`ratio booking / raw insert: ${(median(booking) / median(raw)).toFixed(2)}`);
console.log(
  `1-parcel bookings, 10 clients: ${throughput.requests.average.toFixed(0)} req/s, p99 ${throughput.latency.p99} ms, non-2xx ${throughput.non2xx}`,
);
await database.db.execute(sql`select 1`);
await app.close();
await database.close();

// Invoicing run benchmark: one `invoicing.run({ ToDate })` over many published, picked-up shipments.
// Four real 1-parcel bookings (POST /Shipment/Update: 1–30 kg, three destinations) are the templates;
// BENCH_SHIPMENTS copies of them are seeded set-wise (their price and addresses as booked, their own
// ids, payers, pickup dates in January 2026 and pickup scans) before the run, which is measured alone.
// Printed: shipments and payers, the run's wall time, the process's RSS just before it and its peak
// during it and the peak heapUsed (sampled every 20 ms), and a fingerprint: sha256 over the stored
// invoice lines (invoice_shipments by invoice_nr, line_nr, every column) and invoices (by invoice_nr,
// without created_at). The invoice date is today's, so compare fingerprints of runs made the same day.
// Then the same figures of a credit note of the whole first invoice.
// Needs PostgreSQL: DATABASE_URL=postgres://… pointing at an empty scratch database.
//   BENCH_SHIPMENTS=90000 BENCH_PAYERS=1 npm run bench -- invoicing
// BENCH_SHIPMENTS (90000); BENCH_PAYERS (1: one customer pays all; 100 spreads them evenly over 100).
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type SQL, sql } from 'drizzle-orm';
import { osloBergenBooking } from '../test/factories';
import { benchServer } from './_setup';

const SHIPMENTS = Number(process.env.BENCH_SHIPMENTS ?? 90_000);
const PAYERS = Number(process.env.BENCH_PAYERS ?? 1);
const TO_DATE = '2026-01-31';
const MB = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

if (!process.env.DATABASE_URL) {
  console.error('invoicing benchmark: set DATABASE_URL to an empty PostgreSQL scratch database');
  process.exit(2);
}
const { app, database, services, key, kind } = await benchServer(['booking']);
const db = database.db;
const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;

// The templates, booked by customer 1000 (which pays none of the seeded shipments).
const templates: string[] = [];
for (const [weight, zip, place] of [
  [1, '5003', 'BERGEN'],
  [5, '9008', 'TROMSØ'],
  [12.5, '5003', 'BERGEN'],
  [30, '7010', 'TRONDHEIM'],
] as const) {
  const res = await app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: { authorization: `Bearer ${key}` },
    payload: osloBergenBooking({ Parcels: [{ Weight: weight }], RecipientZip: zip, RecipientPlace: place }),
  });
  if (res.statusCode !== 201) throw new Error(`booking: ${res.statusCode} ${res.body.slice(0, 300)}`);
  templates.push((res.json() as { ShipmentId: string }).ShipmentId);
}
const payers = Array.from({ length: PAYERS }, (_, i) => String(1001 + i));
for (const nr of payers) await services.customers.create({ CustomerNr: nr, Name: `Payer ${nr} AS` });

/** `insert into <table> select …`: every column copied from the template row `t`, but those given. */
async function copy(table: string, overrides: Record<string, SQL>, from: SQL) {
  const columns = rowsOf<{ name: string }>(
    await db.execute(sql`select column_name as name from information_schema.columns
      where table_schema = current_schema() and table_name = ${table} order by ordinal_position`),
  ).map((c) => c.name);
  const values = columns.map((c) => overrides[c] ?? sql.raw(`t.${c}`));
  await db.execute(sql`insert into ${sql.identifier(table)} (${sql.raw(columns.join(', '))})
    select ${sql.join(values, sql`, `)} ${from}`);
}

const seedStarted = performance.now();
const pickedUp = sql.raw(`((date '2026-01-01' + g % 28) + time '10:00') at time zone 'Europe/Oslo'`);
const id = sql.raw(`lpad(g::text, 17, '0')`);
// A payer's shipments take the templates in turn (g = payer + PAYERS × k; template k mod 4).
const template = sql`(${sql.param(templates)}::text[])[1 + g / ${PAYERS}::int % ${templates.length}::int]`;
const payer = sql`(1001 + g % ${PAYERS}::int)::text`;
await copy(
  'shipments',
  {
    id,
    customer_nr: payer,
    price: sql`jsonb_set(t.price, '{Details,PayerCustomerNr}', to_jsonb(${payer}))`,
    sender_reference: sql.raw(`'REF-' || g`),
    pickup_date: sql.raw(`date '2026-01-01' + g % 28`),
    delivery_date: sql.raw(`date '2026-01-01' + g % 28 + (t.delivery_date - t.pickup_date)`),
    picked_up_at: pickedUp,
    published_at: sql`${pickedUp} - interval '1 day'`,
    created_at: sql`${pickedUp} - interval '1 day'`,
    updated_at: pickedUp,
  },
  sql`from generate_series(1, ${SHIPMENTS}::int) g join shipments t on t.id = ${template}`,
);
await copy(
  'parcels',
  { shipment_id: id, parcel_id: sql.raw(`'BENCH' || g`), picked_up_at: pickedUp },
  sql`from generate_series(1, ${SHIPMENTS}::int) g join parcels t on t.shipment_id = ${template}`,
);
await db.execute(sql`analyze`);
const seedSeconds = (performance.now() - seedStarted) / 1000;

/** Runs `work` alone, sampling the process's RSS and heap every 20 ms; its result, time and peaks. */
async function measured<T>(work: () => Promise<T>) {
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  const sampler = setInterval(sample, 20);
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  sample();
  clearInterval(sampler);
  const memory = `RSS before ${MB(before.rss)}, peak during it ${MB(peakRss)} (+${MB(peakRss - before.rss)}); peak heapUsed ${MB(peakHeap)}`;
  return { result, seconds, memory };
}

// The run, measured alone.
const run = await measured(() => services.invoicing.run({ ToDate: TO_DATE }));

const hash = createHash('sha256');
const lines = rowsOf<{ j: string }>(
  await db.execute(sql`select to_jsonb(s)::text as j from invoice_shipments s order by invoice_nr, line_nr`),
);
for (const { j } of lines) hash.update(`${j}\n`);
const invoices = rowsOf<{ j: string; date: string }>(
  await db.execute(sql`select (to_jsonb(i) - 'created_at')::text as j, invoice_date::text as date
    from invoices i order by invoice_nr`),
);
for (const { j } of invoices) hash.update(`${j}\n`);

console.log(
  `database ${kind}; ${SHIPMENTS} shipments, ${PAYERS} payers, picked up 2026-01-01..28, ToDate ${TO_DATE} (seeded in ${seedSeconds.toFixed(1)} s)`,
);
console.log(
  `run: ${run.seconds.toFixed(2)} s, ${run.result.Invoices.length} invoices, ${lines.length} lines`,
);
console.log(`  ${run.memory}`);
console.log(`fingerprint sha256 ${hash.digest('hex')} (invoice date ${invoices[0]?.date ?? '-'})`);

// Then a credit note of the whole first invoice (the largest, with one payer), measured alone.
const first = run.result.Invoices[0];
if (first) {
  const credit = await measured(() => services.invoicing.creditNote({ InvoiceNr: first.InvoiceNr }));
  console.log(
    `credit note of invoice ${first.InvoiceNr} whole: ${credit.seconds.toFixed(2)} s, total ${credit.result.Total}`,
  );
  console.log(`  ${credit.memory}`);
}
await app.close();
await database.close();

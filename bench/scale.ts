// Scale benchmark (CONTRACT §13): latency of a shipment read, a shipment listing and an invoice report
// with 10 000 and then 1 000 000 stored shipments, and the ratio between the two in one run.
// Needs PostgreSQL: DATABASE_URL=postgres://… pointing at an empty scratch database.
//   BENCH_LARGE=1000000 BENCH_REQUESTS=300 npm run bench -- scale
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { benchServer } from './_setup';
import { median, percentile } from './_stats';

const SMALL = 10_000;
const LARGE = Number(process.env.BENCH_LARGE ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);

const { app, database, services, kind } = await benchServer(['shipments', 'invoice']);
if (kind !== 'postgres') {
  console.error('scale benchmark: set DATABASE_URL to an empty PostgreSQL scratch database');
  process.exit(2);
}
const db = database.db;
for (const nr of ['1001', '1002', '1003']) {
  if (!(await services.customers.get(nr)))
    await services.customers.create({ CustomerNr: nr, Name: `Bench ${nr}` });
}
const { Key: key } = await services.auth.createKey({
  name: 'scale',
  customerNrs: ['1001'],
  scopes: ['shipments', 'invoice'],
});

/** A complete address block, as booking stores one. */
const block = (name: string, zip: string) =>
  sql.raw(`jsonb_build_object('CompanyName', '${name}', 'FirstName', null, 'LastName', null, 'Address', 'Gate 1',
    'Address2', null, 'Zip', '${zip}', 'Place', 'STED', 'County', null, 'Country', 'NO', 'Phone', null, 'Email', null)`);

/**
 * Published, picked-up shipments (ids `from`..`to`) of 50 customers over 200 pickup zips and a
 * year of pickup dates, each with one parcel and one invoice line, inserted set-wise.
 */
async function seed(
  from: number,
  to: number,
  customer = sql.raw('(1010 + g % 50)::text'),
  zip = sql.raw("lpad((100 + g % 200)::text, 4, '0')"),
) {
  await db.execute(sql`
    insert into shipments (id, customer_nr, status, product_code, delivery_type, services, unit_code, pickup_zip,
                           addresses, pickup_date, pickup_window_from, pickup_window_to, picked_up_at)
    select lpad(g::text, 17, '0'), ${customer}, 2, '43', 1, '{}', 'KL', ${zip},
           jsonb_build_object('Pickup', ${block('Avsender AS', '0151')}, 'Recipient', ${block('Mottaker AS', '5003')},
                              'Return', null, 'PickupPoint', null),
           date '2026-01-01' + (g % 365), '08:00', '16:00', timestamptz '2026-01-01 10:00+01' + (g % 365) * interval '1 day'
    from generate_series(${from}::int, ${to}::int) g`);
  await db.execute(sql`
    insert into parcels (shipment_id, parcel_id, seq, weight_g)
    select lpad(g::text, 17, '0'), 'P' || g, 1, 1000 from generate_series(${from}::int, ${to}::int) g`);
  await db.execute(sql`
    insert into invoices (invoice_nr, run_id, customer_nr, customer_name, kid, invoice_date, due_date, total_ore)
    select g, 1, ${customer}, 'Bench', g::text || '0', date '2026-01-01' + (g % 365),
           date '2026-01-15' + (g % 365), 10000
    from generate_series(${from}::int, ${to}::int) g`);
  await db.execute(sql`
    insert into invoice_shipments (invoice_nr, line_nr, shipment_id, payer_customer_nr, payer_role, pickup_date,
                                   facts, lines, total_ore)
    select g, 1, lpad(g::text, 17, '0'), ${customer}, 'S', date '2026-01-01' + (g % 365),
           '{"SenderCustomerNr": "1001", "SenderName": "A", "RecipientName": "B", "RecipientCustomerNr": null,
             "DeliveryAddress": null, "PickupZip": "0101", "DeliveryZip": "5003", "ProductCode": "43",
             "ProductName": "System", "Services": [], "UnitCode": "KL", "NumberOfParcels": 1, "NumberOfUnits": 1,
             "RealWeightG": 1000, "VolumeCm3": 0, "ChargeableWeightKg": 1, "LoadMeters": 0, "SenderReference": null,
             "DeliveryDate": null, "Split": false}'::jsonb,
           '[{"CostTypeCode": "FREIGHT", "Description": "Agreed freight", "AmountOre": 10000}]'::jsonb, 10000
    from generate_series(${from}::int, ${to}::int) g`);
  await db.execute(sql`analyze`);
}

// The bulk belongs to customers 1010–1059; customer 1001 has the same 50 shipments (ids 1–50, zip 0151,
// a pickup date each from 1 January) at both sizes, so every answer keeps its size while the tables grow.
const urls = {
  read: '/v2/Shipment/00000000000000031',
  listing:
    '/v1/shipment/list?postalcode=0151&customerid=1001&pickupFromDate=2026-01-01&pickupToDate=2026-03-31',
  'invoice report':
    '/v2/Invoice/GetInvoiceReport?Customernr=1001&Payer=S&FromPickupDate=2026-01-01&ToPickupDate=2026-03-31',
};

async function measure(): Promise<Record<string, { median: number; p95: number; rows: number }>> {
  const out: Record<string, { median: number; p95: number; rows: number }> = {};
  for (const [name, url] of Object.entries(urls)) {
    const times: number[] = [];
    let rows = 0;
    for (let i = 0; i < REQUESTS + 20; i++) {
      const started = performance.now();
      const res = await app.inject({ url, headers: { authorization: `Bearer ${key}` } });
      const elapsed = performance.now() - started;
      if (res.statusCode !== 200) throw new Error(`${name}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      rows = (res.json() as unknown[]).length;
      if (i >= 20) times.push(elapsed); // the first 20 warm caches and plans
    }
    out[name] = { median: median(times), p95: percentile(times, 95), rows };
  }
  return out;
}

const started = performance.now();
await seed(1, 50, sql.raw(`'1001'`), sql.raw(`'0151'`));
await seed(51, SMALL);
console.log(`seeded ${SMALL} shipments in ${((performance.now() - started) / 1000).toFixed(1)} s`);
const small = await measure();
const seededAt = performance.now();
await seed(SMALL + 1, LARGE);
console.log(`seeded up to ${LARGE} shipments in ${((performance.now() - seededAt) / 1000).toFixed(1)} s`);
const large = await measure();

console.log(`database: ${kind}, ${REQUESTS} requests per figure`);
for (const name of Object.keys(urls)) {
  const a = small[name];
  const b = large[name];
  if (!a || !b) continue;
  console.log(
    `${name.padEnd(15)} ${SMALL}: median ${a.median.toFixed(2)} ms p95 ${a.p95.toFixed(2)} ms (${a.rows} rows) | ` +
      `${LARGE}: median ${b.median.toFixed(2)} ms p95 ${b.p95.toFixed(2)} ms (${b.rows} rows) | ratio ${(b.median / a.median).toFixed(2)}`,
  );
}
await app.close();
await database.close();

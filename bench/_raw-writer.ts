// The reference of bench/booking.ts, run as its own process pinned like the server: raw `pg` writes
// of the rows a booking writes, driven by lines on stdin, answering one JSON line each on stdout.
//   one <seconds> <template-shipment-id>   10 clients, each a transaction: shipment, parcel, 2 outbox rows
//   big <template-shipment-id>            one transaction: the shipment and 999 parcels by unnest; its ms
import { createInterface } from 'node:readline';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
let serial = 0;
const nextId = () => `RAW${process.pid}${String(++serial).padStart(10, '0')}`;

async function template(id: string) {
  const { rows } = await pool.query(
    `select row_to_json(s)::text as shipment,
            (select row_to_json(p)::text from parcels p where p.shipment_id = s.id order by seq limit 1) as parcel,
            (select json_agg(row_to_json(o) order by o.id)::text from outbox_events o where o.shipment_id = s.id) as events
       from shipments s where s.id = $1`,
    [id],
  );
  if (!rows[0]) throw new Error(`no shipment ${id}`);
  return rows[0] as { shipment: string; parcel: string; events: string };
}

async function writeOne(client: pg.PoolClient, t: Awaited<ReturnType<typeof template>>) {
  const id = nextId();
  await client.query('begin');
  await client.query(
    `insert into shipments select * from json_populate_record(null::shipments, jsonb_set($1::jsonb, '{id}', to_jsonb($2::text))::json)`,
    [t.shipment, id],
  );
  await client.query(
    `insert into parcels select * from json_populate_record(null::parcels,
       jsonb_set(jsonb_set($1::jsonb, '{shipment_id}', to_jsonb($2::text)), '{parcel_id}', to_jsonb($2::text))::json)`,
    [t.parcel, id],
  );
  await client.query(
    `insert into outbox_events (type, customer_nr, shipment_id, parcel_ids, data)
     select e.type, e.customer_nr, $2, e.parcel_ids, e.data from json_populate_recordset(null::outbox_events, $1::json) e`,
    [t.events, id],
  );
  await client.query('commit');
}

async function one(seconds: number, templateId: string) {
  const t = await template(templateId);
  const until = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      const client = await pool.connect();
      try {
        while (Date.now() < until) {
          await writeOne(client, t);
          done++;
        }
      } finally {
        client.release();
      }
    }),
  );
  return { perSecond: done / seconds };
}

async function big(templateId: string) {
  const t = await template(templateId);
  const id = nextId();
  const n = 999;
  const started = performance.now();
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(
      `insert into shipments select * from json_populate_record(null::shipments, jsonb_set($1::jsonb, '{id}', to_jsonb($2::text))::json)`,
      [t.shipment, id],
    );
    await client.query(
      `insert into parcels (shipment_id, parcel_id, seq, weight_g, length_cm, height_cm, width_cm, volume_cm3)
       select $1, unnest($2::text[]), unnest($3::int[]), unnest($4::int[]), 40, 20, 30, null`,
      [
        id,
        Array.from({ length: n }, (_, i) => `${id}-${i}`),
        Array.from({ length: n }, (_, i) => i + 1),
        Array.from({ length: n }, (_, i) => 1000 * (1 + (i % 20))),
      ],
    );
    await client.query('commit');
  } finally {
    client.release();
  }
  return { ms: performance.now() - started };
}

for await (const line of createInterface({ input: process.stdin })) {
  const [cmd, a, b] = line.trim().split(' ');
  const result = cmd === 'one' ? await one(Number(a), b as string) : await big(a as string);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
await pool.end();

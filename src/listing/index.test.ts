import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import type { Account } from '../auth/access';
import { createListingService } from './service';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await buildTestApp();
  // 100 000 published shipments of 50 customers over 200 pickup zips and a year of pickup dates.
  await ctx.database.db.execute(sql`
    insert into shipments (id, customer_nr, status, product_code, delivery_type, services, unit_code, pickup_zip,
                           addresses, pickup_date, pickup_window_from, pickup_window_to)
    select lpad(g::text, 17, '0'), (1000 + g % 50)::text, 2, '43', 1, '{}', 'KL', lpad((100 + g % 200)::text, 4, '0'),
           '{"Pickup": {}, "Recipient": {}, "Return": null, "PickupPoint": null}'::jsonb,
           date '2026-01-01' + (g % 365), '08:00', '16:00'
    from generate_series(1, 100000) g`);
  await ctx.database.db.execute(sql`
    insert into parcels (shipment_id, parcel_id, seq, weight_g)
    select lpad(g::text, 17, '0'), 'P' || g, 1, 1000 from generate_series(1, 100000) g`);
  await ctx.database.db.execute(sql`analyze shipments`);
  await ctx.database.db.execute(sql`analyze parcels`);
}, 120_000);
afterAll(() => ctx.close());

test('the listing query is served by the listing index at 100 000 shipments', async () => {
  const plan = await ctx.database.db.execute(sql`
    explain select s.id from shipments s
    where s.customer_nr = '1007' and s.pickup_zip = '0107'
      and s.pickup_date between '2026-03-01'::date and '2026-05-31'::date
      and s.status = 2 and s.cancelled_at is null
    order by s.pickup_date, s.id`);
  const text = (plan as unknown as { rows: Record<string, string>[] }).rows
    .map((r) => Object.values(r)[0])
    .join('\n');
  expect(text).toContain('shipments_listing_idx');
  expect(text).not.toMatch(/Seq Scan on shipments/);

  const key = await ctx.keyFor({ customerNrs: ['1007'], scopes: ['shipments'] });
  const res = await ctx.app.inject({
    url: '/v1/shipment/list?postalcode=0107&customerid=1007&pickupFromDate=2026-03-01&pickupToDate=2026-05-31',
    headers: bearer(key),
  });
  expect(res.statusCode).toBe(200);
  const rows = json<{ PickupDate: string; NumberOfParcels: number }[]>(res);
  expect(rows.length).toBeGreaterThan(0);
  expect(rows.every((r) => r.NumberOfParcels === 1)).toBe(true);
  expect(rows.map((r) => r.PickupDate)).toEqual([...rows.map((r) => r.PickupDate)].sort());
}, 60_000);

test('the listing is read and written a page at a time, each page after the last of the one before', async () => {
  const account: Account = {
    keyId: 'k',
    name: 'test',
    customerNrs: new Set(['1007']),
    scopes: new Set(['shipments']),
  };
  const q = {
    postalcode: '0107',
    customerid: 1007,
    pickupFromDate: '2026-01-01',
    pickupToDate: '2026-03-31',
  };
  const collect = async (pageSize: number) => {
    const pages: string[][] = [];
    const listing = createListingService({ booking: ctx.services.booking, pageSize });
    for await (const page of listing.list(account, q)) pages.push(page.map((r) => r.ShipmentId));
    return pages;
  };
  const whole = (await collect(100_000)).flat();
  // Several shipments share a pickup date here, so a page boundary falls between equal dates.
  expect(whole.length).toBeGreaterThan(100);
  const paged = await collect(7);
  expect(paged.flat()).toEqual(whole);
  expect(paged.length).toBe(Math.floor(whole.length / 7) + 1);
  expect(paged.slice(0, -1).every((p) => p.length === 7)).toBe(true);

  // The answer is streamed (no length known up front), and is the same JSON array.
  const key = await ctx.keyFor({ customerNrs: ['1007'], scopes: ['shipments'] });
  const res = await ctx.app.inject({
    url: '/v1/shipment/list?postalcode=0107&customerid=1007&pickupFromDate=2026-01-01&pickupToDate=2026-03-31',
    headers: bearer(key),
  });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.headers['transfer-encoding']).toBe('chunked');
  expect(json<{ ShipmentId: string }[]>(res).map((r) => r.ShipmentId)).toEqual(whole);
  const none = await ctx.app.inject({
    url: '/v1/shipment/list?postalcode=0107&customerid=1007&pickupFromDate=2025-01-01&pickupToDate=2025-01-31',
    headers: bearer(key),
  });
  expect(none.body).toBe('[]');
}, 60_000);

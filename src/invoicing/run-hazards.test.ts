import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { osloBergenBooking } from '../../test/factories';
import {
  bearer,
  buildTestApp,
  invoiceUpTo,
  json,
  pickUp,
  type TestContext,
  urlOfDatabase,
  waitFor,
} from '../../test/helpers';

/** What an invoicing run must survive: payers of many shipments, and scans while it runs. */

// Monday 23 November 2026, 10:00 in Oslo.
let now = new Date('2026-11-23T09:00:00Z');
let ctx: TestContext;
let key: string;
beforeAll(async () => {
  // A statement timeout of 5 s on PostgreSQL: a plan that matched the 7 000 shipments against their
  // id list row by row took ~9 s a statement with the tables not yet analysed (as after a first
  // big day); the run's statements take well under a second.
  ctx = await buildTestApp({ clock: () => now, env: { KOLLI_DB_STATEMENT_TIMEOUT_MS: '5000' } });
  key = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['booking'] });
});
afterAll(() => ctx.close());

async function bookOneParcel() {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: bearer(key),
    payload: osloBergenBooking({ Parcels: [{ Weight: 2 }] }),
  });
  expect(res.statusCode, res.body).toBe(201);
  return json<{ ShipmentId: string; ParcelIds: string[] }>(res);
}

const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;

/**
 * PostgreSQL takes at most 65 535 parameters a statement: a payer's invoice of many shipments, or
 * a run of many more, must not be written as one statement with a parameter a value.
 */
test('a run invoices a payer with 7 000 shipments on one invoice, and marks every one', async () => {
  const booked = await bookOneParcel();
  await pickUp(ctx, booked.ParcelIds, '2026-11-23T09:30:00', 'large');
  // 6 999 copies of the picked-up shipment and its parcel, as if booked and scanned one by one.
  const copies = 6999;
  for (const [table, key, renumber] of [
    ['shipments', 'id', 'id = id || n'],
    ['parcels', 'shipment_id', 'shipment_id = shipment_id || n, parcel_id = parcel_id || n'],
  ]) {
    for (const statement of [
      `create temp table copies as select t.*, '-' || n as n from ${table} t, generate_series(1, ${copies}) n
       where t.${key} = '${booked.ShipmentId}'`,
      `update copies set ${renumber}`,
      'alter table copies drop column n',
      `insert into ${table} select * from copies`,
      'drop table copies',
    ]) {
      await ctx.database.db.execute(sql.raw(statement));
    }
  }

  const run = json<{ Invoices: { CustomerNr: string; InvoiceNr: number }[] }>(
    await invoiceUpTo(ctx, '2026-11-23'),
  );
  expect(run.Invoices.map((i) => i.CustomerNr)).toEqual(['1000']);
  const counted = await ctx.database.db.execute(sql`
    select (select count(*) from invoice_shipments where invoice_nr = ${run.Invoices[0]?.InvoiceNr})::int as lines,
           (select count(*) from shipments where invoiced_at is not null)::int as invoiced`);
  expect(rowsOf(counted)[0]).toEqual({
    lines: copies + 1,
    invoiced: copies + 1,
  });

  // Read back a page of lines at a time (1 000 a statement): every line once, in line order, the
  // row numbers running on across pages, and the same bytes (so the same ETag) on every read.
  const invoiceNr = run.Invoices[0]?.InvoiceNr;
  const reader = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['invoice'] });
  const read = (url: string, headers: Record<string, string> = {}) =>
    ctx.app.inject({ url, headers: { ...bearer(reader), ...headers } });
  const order = rowsOf<{ id: string }>(
    await ctx.database.db.execute(
      sql`select shipment_id as id from invoice_shipments where invoice_nr = ${invoiceNr} order by line_nr`,
    ),
  ).map((r) => r.id);
  const detailsUrl = `/v1/Invoice/GetInvoiceDetails?Customernr=1000&Invoicenr=${invoiceNr}`;
  const details = await read(detailsUrl);
  expect(details.statusCode).toBe(200);
  const rows = json<{ RowNumber: string; Consignment: string }[]>(details);
  const costLines = rows.length / (copies + 1);
  expect(Number.isInteger(costLines) && costLines >= 1).toBe(true);
  expect(rows.map((r) => r.RowNumber)).toEqual(rows.map((_, i) => String(i + 1)));
  expect(rows.filter((_, i) => i % costLines === 0).map((r) => r.Consignment)).toEqual(order);
  const again = await read(detailsUrl, { 'if-none-match': String(details.headers.etag) });
  expect(again.statusCode).toBe(304);

  const v3 = await read(`/v3/Invoice/GetInvoiceReportByInvoicenr?Customernr=1000&Invoicenr=${invoiceNr}`);
  expect(json<{ ShipmentNr: string }[]>(v3).map((r) => r.ShipmentNr)).toEqual(order);
}, 120_000);

test.skipIf(process.env.KOLLI_TEST_DB !== 'postgres')(
  'a pickup scan that commits while a run reads is waited for: the invoice has the pickup date the shipment keeps',
  async () => {
    now = new Date('2026-11-25T09:00:00Z');
    const booked = await bookOneParcel();
    await pickUp(ctx, booked.ParcelIds, '2026-11-24T10:00:00', 'race');
    // A late scan of an earlier pickup, in its own transaction: the shipment locked and changed.
    const scan = new pg.Client({ connectionString: await urlOfDatabase(ctx.database.db) });
    await scan.connect();
    try {
      await scan.query('begin');
      await scan.query(
        `update shipments set picked_up_at = '2026-11-23T08:00:00Z', pickup_date = '2026-11-23' where id = $1`,
        [booked.ShipmentId],
      );
      const run = invoiceUpTo(ctx, '2026-11-24');
      await waitFor(async () => {
        const waiting = await scan.query(
          `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
        return waiting.rowCount ? true : undefined;
      });
      await scan.query('commit');
      await run;
    } finally {
      await scan.end();
    }
    const [line] = rowsOf<{ invoiced: string; kept: string }>(
      await ctx.database.db.execute(sql`
        select i.pickup_date::text as invoiced, s.pickup_date::text as kept
        from invoice_shipments i join shipments s on s.id = i.shipment_id where s.id = ${booked.ShipmentId}`),
    );
    expect(line).toEqual({ invoiced: '2026-11-23', kept: '2026-11-23' });
  },
);

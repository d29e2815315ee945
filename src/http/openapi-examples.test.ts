import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { bearer, buildTestApp, invoiceUpTo, json, pickUp, type TestContext } from '../../test/helpers';
import { EXAMPLES } from './openapi-examples';

// Issue 20: the document's examples are real answers. On a fresh database with the shipped data and
// a pinned clock, the example requests get exactly the example answers.

let now = new Date('2026-11-23T09:00:00Z');
let ctx: TestContext;
let key: string;

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => now });
  key = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['booking', 'shipments', 'price', 'invoice'] });
});
afterAll(() => ctx.close());

const example = (id: string) => {
  const e = EXAMPLES[id];
  if (!e) throw new Error(`no example for ${id}`);
  return e;
};

test('a real booking, its price, a price answer and an invoice report', async () => {
  const booked = await ctx.app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: bearer(key),
    payload: example('updateShipment').request as object,
  });
  expect(booked.statusCode, booked.body).toBe(201);
  const { ShipmentId, ParcelIds } = json<{ ShipmentId: string; ParcelIds: string[] }>(booked);
  const answers: Record<string, unknown> = { updateShipment: json(booked) };

  answers.getShipmentPrice = json(
    await ctx.app.inject({ url: `/v2/Shipment/${ShipmentId}/price`, headers: bearer(key) }),
  );
  answers.calculatePriceV2 = json(
    await ctx.app.inject({
      method: 'POST',
      url: '/v2/PriceCalculator',
      headers: bearer(key),
      payload: example('calculatePriceV2').request as object,
    }),
  );

  now = new Date('2026-11-23T12:00:00Z');
  await pickUp(ctx, ParcelIds, '2026-11-23T13:00:00', 'ex');
  now = new Date('2026-11-30T09:00:00Z');
  await invoiceUpTo(ctx, '2026-11-29');
  answers.getInvoiceReportV2 = json(
    await ctx.app.inject({
      url: '/v2/Invoice/GetInvoiceReport?Customernr=1000&Payer=S&FromPickupDate=2026-11-23&ToPickupDate=2026-11-23',
      headers: bearer(key),
    }),
  );

  // PRINT_EXAMPLES=<file> writes the answers, to update the examples after a deliberate change.
  if (process.env.PRINT_EXAMPLES) writeFileSync(process.env.PRINT_EXAMPLES, JSON.stringify(answers, null, 2));
  expect(answers.updateShipment).toEqual(example('updateShipment').responses?.[201]);
  expect(answers.getShipmentPrice).toEqual(example('getShipmentPrice').responses?.[200]);
  expect(answers.calculatePriceV2).toEqual(example('calculatePriceV2').responses?.[200]);
  expect(answers.getInvoiceReportV2).toEqual(example('getInvoiceReportV2').responses?.[200]);
});

test('the examples are in the served document', async () => {
  const doc = json<{
    paths: Record<
      string,
      Record<string, { responses: Record<string, { content?: Record<string, { example?: unknown }> }> }>
    >;
  }>(await ctx.app.inject({ url: '/openapi.json' }));
  const media =
    doc.paths['/v2/Invoice/GetInvoiceReport']?.get?.responses['200']?.content?.['application/json'];
  expect(media?.example).toEqual(example('getInvoiceReportV2').responses?.[200]);
  expect(
    doc.paths['/Shipment/Update']?.post?.responses['201']?.content?.['application/json']?.example,
  ).toEqual(example('updateShipment').responses?.[201]);
});

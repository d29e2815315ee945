import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { bearer, buildTestApp, invoiceUpTo, json, pickUp, type TestContext } from '../../test/helpers';
import { ensureSandbox } from '../admin/sandbox';
import { EXAMPLES } from './openapi-examples';

// Issue 20: the document's examples are real answers. On a fresh database with the shipped data,
// the sandbox's seed (customer 1000 "Demo Kunde AS" with its price agreement, and the sandbox key,
// created by the same code `npm start` runs) and a pinned clock, the example requests get exactly
// the example answers: what someone trying them on a fresh sandbox gets.

let now = new Date('2026-11-23T09:00:00Z');
let ctx: TestContext;
let key: string;

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => now });
  const sandbox = await ensureSandbox(ctx.services, ctx.config);
  if (!sandbox) throw new Error('the sandbox was not seeded: the test database is not fresh');
  key = sandbox.Key;
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
  const read = async (url: string) => json(await ctx.app.inject({ url, headers: bearer(key) }));

  answers.getShipmentPrice = await read(`/v2/Shipment/${ShipmentId}/price`);
  answers.calculatePriceV2 = json(
    await ctx.app.inject({
      method: 'POST',
      url: '/v2/PriceCalculator',
      headers: bearer(key),
      payload: example('calculatePriceV2').request as object,
    }),
  );

  now = new Date('2026-11-23T12:00:00Z');
  await pickUp(ctx, ParcelIds, '2026-11-23T13:00:00', 'scan');
  now = new Date('2026-11-30T09:00:00Z');
  await invoiceUpTo(ctx, '2026-11-29');
  answers.getInvoiceReportV2 = await read(
    '/v2/Invoice/GetInvoiceReport?Customernr=1000&Payer=S&FromPickupDate=2026-11-23&ToPickupDate=2026-11-23',
  );

  answers.getPriceV3 = await read(
    '/v3/Calculate/?Customernr=1000&SenderZip=0150&ReceiverZip=5003&Weight=12&VolumeD3=72&ProductCode=43&Services=16',
  );
  answers.getShipmentV2 = await read(`/v2/Shipment/${ShipmentId}`);
  answers.listShipmentEvents = await read(`/v1/Shipment/${ShipmentId}/events`);
  answers.listShipments = await read(
    '/v1/shipment/list?postalcode=0154&customerid=1000&pickupFromDate=2026-11-23&pickupToDate=2026-11-23',
  );
  answers.getInvoiceDetails = await read('/v1/Invoice/GetInvoiceDetails?Customernr=1000&Invoicenr=1');
  answers.listPickupPoints = await read('/v1/pickuppoints?postalCode=0150&limit=2');
  answers.getPickupPoint = await read('/v1/pickuppoints/10154');

  // PRINT_EXAMPLES=<file> writes the answers, to update the examples after a deliberate change.
  if (process.env.PRINT_EXAMPLES) writeFileSync(process.env.PRINT_EXAMPLES, JSON.stringify(answers, null, 2));
  expect(answers.updateShipment).toEqual(example('updateShipment').responses?.[201]);
  expect(answers.getShipmentPrice).toEqual(example('getShipmentPrice').responses?.[200]);
  expect(answers.calculatePriceV2).toEqual(example('calculatePriceV2').responses?.[200]);
  expect(answers.getInvoiceReportV2).toEqual(example('getInvoiceReportV2').responses?.[200]);
  for (const id of [
    'getPriceV3',
    'getShipmentV2',
    'listShipmentEvents',
    'listShipments',
    'getInvoiceDetails',
    'listPickupPoints',
    'getPickupPoint',
  ]) {
    expect(answers[id], id).toEqual(example(id).responses?.[200]);
  }
  // Every example is recorded here: one added without its request above would go unchecked.
  expect(Object.keys(answers).sort()).toEqual(Object.keys(EXAMPLES).sort());
});

test('every example is in the served document, where its operation answers', async () => {
  type Media = { content?: Record<string, { example?: unknown }> };
  const doc = json<{
    paths: Record<
      string,
      Record<string, { operationId?: string; requestBody?: Media; responses: Record<string, Media> }>
    >;
  }>(await ctx.app.inject({ url: '/openapi.json' }));
  const operations = new Map(
    Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => [op.operationId, op])),
  );
  for (const [id, { request, responses }] of Object.entries(EXAMPLES)) {
    const op = operations.get(id);
    expect(op, id).toBeDefined();
    if (request) expect(op?.requestBody?.content?.['application/json']?.example, id).toEqual(request);
    for (const [status, answer] of Object.entries(responses ?? {})) {
      expect(op?.responses[status]?.content?.['application/json']?.example, `${id} ${status}`).toEqual(
        answer,
      );
    }
  }
});

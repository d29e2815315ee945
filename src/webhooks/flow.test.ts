// From the real emitters to the target: booking, scans and an invoicing run write outbox rows in
// their transactions; the worker turns them into signed deliveries for the matching registrations.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { osloBergenBooking } from '../../test/factories';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import { createDeliveryEngine } from './delivery';
import { type Receiver, startReceiver } from './test-support';

// Monday 23 November 2026, 10:00 in Oslo (the booking and scan rules run on this clock).
const NOW = new Date('2026-11-23T09:00:00Z');
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

let ctx: TestContext;
let receiver: Receiver;

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => NOW, env: { KOLLI_WEBHOOK_ALLOW_PRIVATE: '1' } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await ctx.close();
});

interface Delivered {
  path: string;
  type: string;
  data: Record<string, unknown>;
}

test('booking, scans and invoicing reach the registrations of the parcel, the shipment and the customer', async () => {
  const key = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['booking', 'webhooks', 'shipments'] });
  const opsKey = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['ops'] });
  const inject = (method: 'POST' | 'PUT', url: string, payload: object, k = key) =>
    ctx.app.inject({ method, url, headers: bearer(k), payload });

  const shipment = osloBergenBooking({ ShipmentStatus: 'Draft', Parcels: [{ Weight: 12.5 }, { Weight: 3 }] });
  const draft = await inject('POST', '/Shipment/Update', shipment);
  expect(draft.statusCode, draft.body).toBe(201);
  const { ShipmentId, ParcelIds } = json<{ ShipmentId: string; ParcelIds: string[] }>(draft);
  const [first, second] = ParcelIds;

  for (const [eventValueType, eventValue, path] of [
    [1, first, 'parcel'],
    [2, ShipmentId, 'shipment'],
    [3, '1000', 'customer'],
  ] as const) {
    const res = await inject('POST', '/v1/Webhooks', {
      eventValue,
      eventValueType,
      url: `${receiver.url}/${path}`,
      secret: SECRET,
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  const published = await inject('POST', '/Shipment/Update', {
    ...shipment,
    ShipmentId,
    ShipmentStatus: 'Published',
    Parcels: ParcelIds.map((ParcelId) => ({ ParcelId })),
  });
  expect(published.statusCode, published.body).toBe(200);
  const scans = await inject(
    'POST',
    '/ops/scans',
    {
      Events: [
        { EventId: 'e1', ParcelId: first, EventType: 'PickedUp', Time: '2026-11-23T09:30:00' },
        { EventId: 'e2', ParcelId: second, EventType: 'PickedUp', Time: '2026-11-23T09:31:00' },
        { EventId: 'e3', ParcelId: second, EventType: 'Delivered', Time: '2026-11-23T09:55:00' },
      ],
    },
    opsKey,
  );
  expect(scans.statusCode, scans.body).toBe(200);
  const run = await inject('POST', '/admin/invoicing/runs', { ToDate: '2026-11-23' }, ADMIN_KEY);
  expect(run.statusCode, run.body).toBe(201);

  // The worker's work, done by hand: a real clock, since the receiver checks the signature's age.
  const engine = createDeliveryEngine({ db: ctx.database.db, allowPrivate: true });
  try {
    await engine.fanOut();
    for (;;) {
      const claimed = await engine.claim(10);
      if (claimed.length === 0) break;
      await Promise.all(claimed.map((c) => engine.attempt(c)));
    }
  } finally {
    engine.close();
  }

  const delivered: Delivered[] = receiver.received.map((r) => {
    const body = new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>) as Delivered;
    return { path: r.path, type: body.type, data: body.data };
  });
  const typesAt = (path: string) => delivered.filter((d) => d.path === `/${path}`).map((d) => d.type);

  // The customer's registration hears everything after it was created, the invoice included.
  const customer = typesAt('customer');
  expect(customer).toContain('shipment.published');
  expect(customer.filter((t) => t === 'parcel.pickedup')).toHaveLength(2);
  expect(customer).toContain('parcel.delivered');
  expect(customer.at(-1)).toBe('invoice.issued');
  // The shipment's: the same without the invoice.
  expect(typesAt('shipment')).toEqual(customer.filter((t) => t !== 'invoice.issued'));
  // The parcel's: its shipment's events and its own scan, not the other parcel's.
  const parcel = delivered.filter((d) => d.path === '/parcel');
  expect(parcel.map((d) => d.type)).toContain('shipment.published');
  expect(parcel.filter((d) => d.type.startsWith('parcel.')).map((d) => d.data.ParcelId)).toEqual([first]);
  // No registration heard the draft's creation: it happened before they existed.
  expect(delivered.some((d) => d.type === 'shipment.created')).toBe(false);

  const publishedEvent = delivered.find((d) => d.path === '/shipment' && d.type === 'shipment.published');
  expect(publishedEvent?.data).toMatchObject({ CustomerNr: '1000', ShipmentId, ParcelIds });
  const invoice = delivered.find((d) => d.type === 'invoice.issued');
  expect(invoice?.data).toMatchObject({
    CustomerNr: '1000',
    ShipmentIds: [ShipmentId],
    ShipmentCount: 1,
    ShipmentIdsTruncated: false,
  });
});

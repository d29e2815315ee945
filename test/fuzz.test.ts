import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { osloBergenBooking } from './factories';
import { ADMIN_KEY, bearer, buildTestApp, type TestContext } from './helpers';

// CONTRACT §13: no 5xx for any malformed input. Random values go into every field of the main
// requests; whatever comes back must be an answer about the request (2xx/4xx), never a fault.

let ctx: TestContext;
let key: string;

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => new Date('2026-11-23T09:00:00Z') });
  key = await ctx.keyFor({
    customerNrs: ['1000'],
    scopes: ['booking', 'price', 'invoice', 'shipments', 'webhooks', 'labels', 'ops'],
  });
});
afterAll(() => ctx.close());

/** Any JSON value, with the strings that tend to break parsers and databases among them. */
const nasty = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '9999-12-31',
    '0000-00-00',
    '2026-02-30T25:61:61',
    '1e309',
    'NaN',
    '-0',
    '99999999999999999999',
    '00000000000000000',
    'urn:uuid:3fa85f64-5717-4562-b3fc-2c963f66afa6',
    '%00',
    '../../etc/passwd',
    "'; drop table shipments; --",
    'Ærø Ålesund Øst',
    'x'.repeat(5000),
  ),
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string({ maxLength: 10 }), fc.integer()), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
);

const BOOKING_FIELDS = [
  'ShipmentStatus',
  'CustomerId',
  'ShipmentId',
  'ProductCode',
  'DeliveryType',
  'Services',
  'DeliveryDate',
  'PickupDate',
  'UnitCode',
  'RecipientShallPay',
  'RecipientCustomerId',
  'PayerCustomerId',
  'PickupPointId',
  'ShouldGenerateReturnShipment',
  'PickupZip',
  'RecipientZip',
  'RecipientCountry',
  'RecipientEmail',
  'CustomsInformation',
  'Parcels',
];

const valid = osloBergenBooking({ Parcels: [{ Weight: 2 }] });

const parcel = fc.record(
  {
    ParcelId: nasty,
    Delete: nasty,
    Weight: nasty,
    Length: nasty,
    Height: nasty,
    Width: nasty,
    Volume: nasty,
  },
  { requiredKeys: [] },
);

test('a booking with random values in its fields never answers 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.subarray(BOOKING_FIELDS, { minLength: 1, maxLength: 4 }),
      fc.array(nasty, { minLength: 4, maxLength: 4 }),
      fc.option(fc.array(parcel, { maxLength: 3 }), { nil: undefined }),
      async (fields, values, parcels) => {
        const body: Record<string, unknown> = { ...valid };
        fields.forEach((f, i) => {
          body[f] = values[i];
        });
        if (parcels) body.Parcels = parcels;
        const res = await ctx.app.inject({
          method: 'POST',
          url: '/Shipment/Update',
          headers: bearer(key),
          payload: body,
        });
        expect(
          res.statusCode,
          `${JSON.stringify(body).slice(0, 300)} → ${res.body.slice(0, 300)}`,
        ).toBeLessThan(500);
      },
    ),
    { numRuns: 150 },
  );
});

const queryValue = fc.oneof(
  fc.constantFrom(
    'a\u0000b',
    '',
    '0',
    '-1',
    '9999-12-31',
    '2026-11-23',
    '1e9',
    '99999999999999999999',
    '%00',
    'abc',
    '0150',
  ),
  fc.string({ maxLength: 20 }),
);

const GET_ROUTES: [string, string[]][] = [
  [
    '/v3/Calculate/',
    [
      'Customernr',
      'SenderZip',
      'ReceiverZip',
      'Weight',
      'VolumeD3',
      'ProductCode',
      'Services',
      'UnitCode',
      'PickupDate',
      'PaymentCode',
    ],
  ],
  [
    '/v2/PriceCalculator',
    ['customer_nr', 'sender_zip', 'receiver_zip', 'weight', 'product_type', 'unit_code', 'number_of_units'],
  ],
  [
    '/v2/europe/price',
    [
      'CustomerId',
      'ProductCode',
      'OriginCountry',
      'OriginPostalCode',
      'DestinationCountry',
      'DestinationPostalCode',
      'Weight',
      'Volume',
      'Currency',
      'ShipmentCategory',
      'Terms',
    ],
  ],
  [
    '/v1/InvoiceGetInvoiceReport',
    ['Customernr', 'Payer', 'PickupTerminal', 'FromPickupDate', 'ToPickupDate'],
  ],
  ['/v2/Invoice/GetInvoiceReport', ['Customernr', 'Payer', 'FromPickupDate', 'ToPickupDate']],
  ['/v1/Invoice/GetInvoiceDetails', ['Customernr', 'Invoicenr']],
  ['/v1/shipment/list', ['postalcode', 'customerid', 'pickupFromDate', 'pickupToDate']],
  ['/v1/schedule/deliverydates', ['fromZip', 'toZip', 'productCode', 'pickupDate']],
  ['/v1/schedule/workingdays', ['from', 'to']],
  ['/v1/pickuppoints', ['postalCode', 'limit']],
  ['/v1/Webhooks', ['limit', 'offset']],
];

test('the query operations with random parameters never answer 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...GET_ROUTES),
      fc.array(queryValue, { minLength: 11, maxLength: 11 }),
      async ([path, names], values) => {
        const query = names.map((n, i) => `${n}=${encodeURIComponent(values[i] ?? '')}`).join('&');
        const res = await ctx.app.inject({ url: `${path}?${query}`, headers: bearer(key) });
        expect(res.statusCode, `${path}?${query} → ${res.body.slice(0, 300)}`).toBeLessThan(500);
      },
    ),
    { numRuns: 250 },
  );
});

test('path ids of every shape never answer 5xx', async () => {
  const paths = [
    '/v2/Shipment/',
    '/Shipment/',
    '/v1/Shipment/',
    '/v1/labels/',
    '/v1/Webhooks/',
    '/v1/postalcodes/',
    '/v1/products/',
    '/v1/pickuppoints/',
    '/v1/Invoice/',
  ];
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...paths), queryValue, async (prefix, id) => {
      const url = `${prefix}${encodeURIComponent(id) || 'x'}${prefix === '/v1/Invoice/' ? '/pdf' : ''}`;
      for (const k of [key, ADMIN_KEY]) {
        const res = await ctx.app.inject({ url, headers: bearer(k) });
        expect(res.statusCode, `${url} → ${res.body.slice(0, 300)}`).toBeLessThan(500);
      }
    }),
    { numRuns: 150 },
  );
});

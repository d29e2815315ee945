import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { toGothenburg } from '../../test/factories';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import { outboxEvents } from '../events/tables';
import { gsin, isGsin, isSscc, sscc } from '../lib/gs1';
import { idempotencyKeys, parcels, shipments } from './tables';

// Monday 23 November 2026, 10:00 in Oslo: pickup today, Fix Day dates from the schedule.
const NOW = new Date('2026-11-23T09:00:00Z');

let ctx: TestContext;
let key: string; // customer 1000
let otherKey: string; // customer 2000

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => NOW });
  key = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['booking', 'shipments'] });
  otherKey = await ctx.keyFor({ customerNrs: ['2000'], scopes: ['booking', 'shipments'] });
});
afterAll(() => ctx.close());

type Body = Record<string, unknown>;

/** A complete, publishable booking from Oslo to Bergen. */
const booking = (over: Body = {}): Body => ({
  ShipmentStatus: 'Published',
  CustomerId: '1000',
  ProductCode: '43',
  DeliveryType: 1,
  Services: [],
  SenderReference: 'PO-4711-LONG-REFERENCE',
  PickupCompanyName: 'Demo Kunde AS',
  PickupAddress: 'Karl Johans gate 1',
  PickupZip: '0154',
  PickupPlace: 'OSLO',
  PickupPhone: '+47 22 00 00 00',
  RecipientCompanyName: 'Fjord Frakt AS',
  RecipientFirstName: 'Åse',
  RecipientLastName: 'Øvrebø',
  RecipientAddress: 'Bryggen 1',
  RecipientZip: '5003',
  RecipientPlace: 'BERGEN',
  RecipientEmail: 'post@fjordfrakt.no',
  Parcels: [
    { Weight: 12.5, Length: 60, Width: 40, Height: 30 },
    { Weight: 3, Volume: 20 },
  ],
  ...over,
});

const post = (body: unknown, k = key, headers: Record<string, string> = {}) =>
  ctx.app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: { ...bearer(k), ...headers },
    payload: body as Body,
  });
const read = (id: string, k = key, prefix = '/v2') =>
  ctx.app.inject({ url: `${prefix}/Shipment/${id}`, headers: bearer(k) });
const errorsOf = (res: Awaited<ReturnType<typeof post>>) =>
  json<{ errors: Record<string, string[]> }>(res).errors;

interface UpdateResult {
  ShipmentId: string;
  ShipmentStatus: number;
  ParcelIds: string[];
  ReturnShipmentId: string | null;
}

const RECORD_FIELDS = [
  'Addresses',
  'CommentToCarrier',
  'CustomerId',
  'DeliveryDate',
  'DeliveryDateTo',
  'DeliveryType',
  'GoodsDescription',
  'Height',
  'IsReturn',
  'Length',
  'LoadingMeters',
  'PalletSpaces',
  'ParcelId',
  'ParcelStatus',
  'PickupDate',
  'PickupDateTo',
  'PickupEmail',
  'PickupPhone',
  'PickupPointId',
  'ProductCode',
  'RecipientCustomerId',
  'RecipientEmail',
  'RecipientPhone',
  'RecipientShallPay',
  'References',
  'ReturnEmail',
  'ReturnPhone',
  'Services',
  'ShipmentId',
  'UnitCode',
  'Volume',
  'Weight',
  'Width',
].sort();

describe('create and read', () => {
  test('a draft needs no addresses or weights; ids are a GSIN and SSCCs', async () => {
    const res = await post({
      ShipmentStatus: 'Draft',
      CustomerId: '1000',
      ProductCode: '43',
      DeliveryType: 'Company',
      Parcels: [{}, {}],
    });
    expect(res.statusCode).toBe(201);
    const body = json<UpdateResult>(res);
    expect(Object.keys(body).sort()).toEqual([
      'ParcelIds',
      'ReturnShipmentId',
      'ShipmentId',
      'ShipmentStatus',
    ]);
    expect(isGsin(body.ShipmentId)).toBe(true);
    expect(body.ShipmentId.startsWith(ctx.config.gs1Prefix)).toBe(true);
    expect(body.ParcelIds).toHaveLength(2);
    expect(body.ParcelIds.every(isSscc)).toBe(true);
    expect(body).toMatchObject({ ShipmentStatus: 0, ReturnShipmentId: null });
    expect(res.headers.location).toBe(`/v2/Shipment/${body.ShipmentId}`);
    expect(res.headers.etag).toBeDefined();
  });

  test('a published booking reads back every field, the same on both paths', async () => {
    const res = await post(
      booking({ Services: ['16'], CommentToCarrier: 'Ring på', GoodsDescription: 'Bøker' }),
    );
    expect(res.statusCode).toBe(201);
    const { ShipmentId, ParcelIds, ShipmentStatus } = json<UpdateResult>(res);
    expect(ShipmentStatus).toBe(2);

    const v2 = await read(ShipmentId);
    const v1 = await read(ShipmentId, key, '');
    expect(v2.statusCode).toBe(200);
    expect(v1.json()).toEqual(v2.json());
    expect(v2.headers.etag).toBe(res.headers.etag);
    const records = json<Record<string, unknown>[]>(v2);
    expect(records).toHaveLength(2);
    for (const r of records) expect(Object.keys(r).sort()).toEqual(RECORD_FIELDS);
    const [first, second] = records;
    expect(first).toMatchObject({
      ParcelStatus: 2,
      CustomerId: '1000',
      ParcelId: ParcelIds[0],
      IsReturn: false,
      Weight: 12.5,
      Length: 60,
      Width: 40,
      Height: 30,
      Volume: null,
      ProductCode: '43',
      Services: ['16'],
      DeliveryType: 1,
      CommentToCarrier: 'Ring på',
      GoodsDescription: 'Bøker',
      ShipmentId,
      UnitCode: 'KL',
      RecipientShallPay: false,
      RecipientCustomerId: null,
      PickupPointId: null,
      PickupPhone: '+47 22 00 00 00',
      PickupEmail: null,
      RecipientEmail: 'post@fjordfrakt.no',
      ReturnPhone: null,
      References: [{ ReferenceTypeId: 1, ReferenceLevel: 1, ReferenceText: 'PO-4711-LONG-REFERENCE' }],
      LoadingMeters: 0,
      PalletSpaces: 0,
      PickupDate: '2026-11-23T08:00:00',
      PickupDateTo: '2026-11-23T16:00:00',
    });
    expect(second).toMatchObject({ Weight: 3, Volume: 20, Length: null });
    expect(first?.Addresses).toEqual([
      {
        AddressTypeId: 1,
        FirstName: null,
        LastName: null,
        CompanyName: 'Demo Kunde AS',
        Address: 'Karl Johans gate 1',
        Address2: null,
        Zip: '0154',
        Place: 'OSLO',
        County: null,
        Country: 'NO',
      },
      {
        AddressTypeId: 2,
        FirstName: 'Åse',
        LastName: 'Øvrebø',
        CompanyName: 'Fjord Frakt AS',
        Address: 'Bryggen 1',
        Address2: null,
        Zip: '5003',
        Place: 'BERGEN',
        County: null,
        Country: 'NO',
      },
    ]);
    expect(String(first?.DeliveryDate)).toMatch(/^2026-11-2\dT08:00:00$/);
    expect(String(first?.DeliveryDateTo)).toMatch(/^2026-11-2\dT16:00:00$/);
  });

  test('publishing freezes the priced cost lines with the shipment', async () => {
    const { ShipmentId } = json<UpdateResult>(await post(booking()));
    const [row] = await ctx.database.db.select().from(shipments).where(eq(shipments.id, ShipmentId));
    expect(row?.price?.TotalOre).toBeGreaterThan(0);
    const sum = (row?.price?.Lines ?? []).reduce((s, l) => s + l.AmountOre, 0);
    expect(sum).toBe(row?.price?.TotalOre);
  });

  test('pallets give pallet spaces and loading metres', async () => {
    const res = await post(
      booking({
        UnitCode: 'PL',
        Parcels: [{ Weight: 300, Length: 120, Width: 80, Height: 100 }, { Weight: 200 }],
      }),
    );
    const records = json<{ PalletSpaces: number; LoadingMeters: number }[]>(
      await read(json<UpdateResult>(res).ShipmentId),
    );
    expect(records[0]).toMatchObject({ PalletSpaces: 2, LoadingMeters: 0.8 });
  });
});

describe('rules (400 naming every violated field)', () => {
  test('a pickup-point product is published to a pickup point, never to the door', async () => {
    const pp = { ProductCode: 'PP', DeliveryType: 0, SenderReference: 'PP-NO-POINT' };
    const refused = await post(booking(pp));
    expect(refused.statusCode).toBe(400);
    expect(errorsOf(refused)).toEqual({
      PickupPointId: [
        'Product PP delivers to a pickup point: give PickupPointId and the PickupPoint address (GET /v1/pickuppoints?postalCode=5003 lists the nearest).',
      ],
    });
    // A draft may leave it for later.
    expect((await post(booking({ ...pp, ShipmentStatus: 'Draft' }))).statusCode).toBe(201);
  });

  test('a service code is no address, and a PO-box code none a driver goes to', async () => {
    // Once booked: 0018 and 0045 are business-reply codes, 0101 is PO boxes at Oslo's post office.
    const refused = await post(booking({ PickupZip: '0101', RecipientZip: '0045', ReturnZip: '0018' }));
    expect(refused.statusCode).toBe(400);
    expect(errorsOf(refused)).toMatchObject({
      PickupZip: ["Postal code 0101 is for PO boxes only: the pickup needs a street address's postal code."],
      RecipientZip: ['Postal code 0045 is a service code, not used in addresses.'],
      ReturnZip: ['Postal code 0018 is a service code, not used in addresses.'],
    });
    const toTheDoor = await post(booking({ RecipientZip: '0101', RecipientPlace: 'OSLO' }));
    expect(errorsOf(toTheDoor)).toEqual({
      RecipientZip: [
        "Postal code 0101 is for PO boxes only: the delivery needs a street address's postal code.",
      ],
    });
    expect(errorsOf(await post(booking({ RecipientZip: '0000' })))).toEqual({
      RecipientZip: ['Postal code 0000 is not in the postal register.'],
    });
    // To a pickup point the parcels go to the point: the recipient's own code may be a PO box's.
    const toAPoint = await post(
      booking({
        ProductCode: 'PP',
        DeliveryType: 0,
        RecipientZip: '0101',
        RecipientPlace: 'OSLO',
        PickupPointId: 19900,
        PickupPointCompanyName: 'Kolli sandbox point KIRKENES 9900',
        PickupPointAddress: 'Sandkassevegen 3',
        PickupPointZip: '9900',
        PickupPointPlace: 'KIRKENES',
      }),
    );
    expect(toAPoint.statusCode, toAPoint.body).toBe(201);
    // A PickupPoint address block names no point: without PickupPointId the parcels go to the door.
    const blockOnly = await post(
      booking({
        RecipientZip: '0101',
        RecipientPlace: 'OSLO',
        PickupPointAddress: 'x',
        PickupPointZip: '0150',
        PickupPointPlace: 'OSLO',
      }),
    );
    expect(errorsOf(blockOnly)).toMatchObject({
      RecipientZip: [
        "Postal code 0101 is for PO boxes only: the delivery needs a street address's postal code.",
      ],
    });
    // A return shipment's parcels go to the return address's door.
    const returned = await post(
      booking({
        ProductCode: 'HE',
        DeliveryType: 0,
        RecipientCompanyName: undefined,
        RecipientFirstName: 'Kari',
        RecipientLastName: 'Nordmann',
        ShouldGenerateReturnShipment: true,
        ReturnAddress: 'Postboks 1',
        ReturnZip: '0101',
        ReturnPlace: 'OSLO',
      }),
    );
    expect(errorsOf(returned)).toEqual({
      ReturnZip: [
        "Postal code 0101 is for PO boxes only: the delivery needs a street address's postal code.",
      ],
    });
    // A draft may hold any code of the register until it is made final (a read record sent back as it is).
    const draft = { ShipmentStatus: 'Draft', PickupZip: '0101', RecipientZip: '0045' };
    expect((await post(booking(draft))).statusCode).toBe(201);
    const pointLater = { ShipmentStatus: 'Draft', ProductCode: 'PP', DeliveryType: 0, RecipientZip: '0101' };
    expect((await post(booking(pointLater))).statusCode).toBe(201);
  });

  test('ReadyForPublish without weights and addresses reports all of them together', async () => {
    const res = await post({
      ShipmentStatus: 'ReadyForPublish',
      CustomerId: '1000',
      ProductCode: '43',
      DeliveryType: 0,
      Parcels: [{ Length: 10 }, { Weight: 1 }],
    });
    expect(res.statusCode).toBe(400);
    const errors = errorsOf(res);
    expect(Object.keys(errors).sort()).toEqual(
      [
        'Parcels[0].Weight',
        'PickupAddress',
        'PickupCompanyName',
        'PickupPlace',
        'PickupZip',
        'RecipientAddress',
        'RecipientCompanyName',
        'RecipientPlace',
        'RecipientZip',
      ].sort(),
    );
  });

  test.each([
    [{ ProductCode: 'ZZ' }, 'ProductCode'],
    [{ Services: ['99'] }, 'Services[0]'],
    [{ Services: ['16', '18'] }, 'Services[1]'],
    [{ Services: ['16'], RecipientEmail: undefined }, 'RecipientEmail'],
    [{ Services: ['15'] }, 'RecipientPhone'],
    [{ RecipientEmail: 'not-an-address' }, 'RecipientEmail'],
    [{ Services: ['35'] }, 'DeliveryDate'],
    [{ ShipmentId: '12345678901234567' }, 'ShipmentId'],
    [{ RecipientShallPay: true }, 'RecipientCustomerId'],
    [{ ShouldGenerateReturnShipment: true }, 'ShouldGenerateReturnShipment'],
    [{ PickupDate: '2026-11-24' }, 'PickupDate'],
    [{ DeliveryDate: '2026-11-28' }, 'DeliveryDate'],
    [{ DeliveryDate: '2026-12-24' }, 'DeliveryDate'],
    [{ DeliveryDate: '2026-02-30' }, 'DeliveryDate'],
    [{ UnitCode: 'XX' }, 'UnitCode'],
    [{ UnitCode: '51' }, 'UnitCode'],
    [{ RecipientZip: '50031' }, 'RecipientZip'],
    [{ RecipientZip: '0000' }, 'RecipientZip'],
    [{ RecipientCountry: 'SE', RecipientZip: '11122' }, 'RecipientCountry'],
    [{ ProductCode: 'EP', RecipientCountry: 'SE', RecipientZip: '11122' }, 'CustomsInformation'],
    [
      {
        ProductCode: 'EP',
        RecipientCountry: 'SE',
        RecipientZip: '11122',
        CustomsInformation: { Lines: null },
      },
      'CustomsInformation',
    ],
    [{ PickupPointId: 42 }, 'PickupPointId'],
    // Point 19900 is in Kirkenes: an Oslo address for it would plan and price the parcel to Oslo.
    [
      {
        PickupPointId: 19900,
        PickupPointCompanyName: 'Kolli sandbox point KIRKENES 9900',
        PickupPointAddress: 'Sandkassevegen 3',
        PickupPointZip: '0154',
        PickupPointPlace: 'OSLO',
      },
      'PickupPointZip',
    ],
    [{ CustomerId: 'ABC' }, 'CustomerId'],
    [{ ShipmentStatus: 'Bogus' }, 'ShipmentStatus'],
    [{ DeliveryType: 7 }, 'DeliveryType'],
    [{ CommentToCarrier: 'x'.repeat(10_000) }, 'CommentToCarrier'],
    [{ GoodsDescription: 'nul\u0000byte' }, 'GoodsDescription'],
    [{ Parcels: [{ Weight: -1 }] }, 'Parcels[0].Weight'],
    // A numeric string binds and a 0 measure is "not given" (CONTRACT §2); other text does not.
    [{ Parcels: [{ Weight: '12 kg' }] }, 'Parcels[0].Weight'],
    [{ Parcels: [{ Weight: 1, Length: -1 }] }, 'Parcels[0].Length'],
    // Product 43 takes parcels of at most 400 × 240 × 220 cm (data/catalog/catalog.json).
    [{ Parcels: [{ Weight: 1 }, { Weight: 1, Length: 401 }] }, 'Parcels[1].Length'],
    [{ Parcels: [{ Weight: 1, Width: 241 }] }, 'Parcels[0].Width'],
    [{ Parcels: [{ Weight: 1, Height: 221 }] }, 'Parcels[0].Height'],
    [{ Parcels: [{ Weight: 5000 }] }, 'Parcels[0].Weight'],
    [{ Parcels: [] }, 'Parcels'],
    [{ Parcels: Array.from({ length: 1000 }, () => ({ Weight: 1 })) }, 'Parcels'],
    [
      {
        Parcels: [
          { Weight: 1, ParcelId: 'A' },
          { Weight: 1, ParcelId: 'A' },
        ],
      },
      'Parcels[1].ParcelId',
    ],
    [{ Parcels: [{ ParcelId: 'NOPE', Delete: true }, { Weight: 1 }] }, 'Parcels[0].ParcelId'],
  ])('%j is a 400 on %s', async (over, field) => {
    const res = await post(booking(over));
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(Object.keys(errorsOf(res))).toContain(field);
  });

  test("a parcel at its product's limits is booked; a centimetre over is refused, naming the limit", async () => {
    const atLimits = await post(booking({ Parcels: [{ Weight: 1, Length: 400, Width: 240, Height: 220 }] }));
    expect(atLimits.statusCode, atLimits.body).toBe(201);
    const over = await post(booking({ Parcels: [{ Weight: 1, Length: 401, Width: 241, Height: 221 }] }));
    expect(over.statusCode).toBe(400);
    expect(errorsOf(over)).toMatchObject({
      'Parcels[0].Length': ['The Length of a parcel of product 43 may be at most 400 cm.'],
      'Parcels[0].Width': ['The Width of a parcel of product 43 may be at most 240 cm.'],
      'Parcels[0].Height': ['The Height of a parcel of product 43 may be at most 220 cm.'],
    });
  });

  test('a NUL character in a shipment id path is a 400 on the path field, never a 500', async () => {
    for (const res of [
      await read('a%00b'),
      await read('a%00b', key, ''),
      await ctx.app.inject({ method: 'DELETE', url: '/v2/Shipment/%00', headers: bearer(key) }),
    ]) {
      expect(res.statusCode).toBe(400);
      expect(Object.keys(errorsOf(res))).toEqual(['shipmentid']);
    }
  });

  test('a paying recipient is a payer the key must be able to act for', async () => {
    const foreign = await post(booking({ RecipientShallPay: true, RecipientCustomerId: 2000 }));
    expect(foreign.statusCode).toBe(403);
    expect(foreign.headers['content-type']).toMatch(/^text\/plain/);
    const both = await ctx.keyFor({ customerNrs: ['1000', '2000'], scopes: ['booking'] });
    const allowed = await post(booking({ RecipientShallPay: true, RecipientCustomerId: 2000 }), both);
    expect(allowed.statusCode, allowed.body).toBe(201);
    const unknown = await post(booking({ RecipientShallPay: true, RecipientCustomerId: 987654 }), ADMIN_KEY);
    expect(unknown.statusCode).toBe(400);
    expect(Object.keys(errorsOf(unknown))).toEqual(['RecipientCustomerId']);
  });

  test('valid sides of the same rules are accepted', async () => {
    for (const over of [
      { Services: ['15'], RecipientPhone: '+4791234567' },
      { Services: ['35'], DeliveryDate: undefined },
      { ProductCode: 'DI', PickupDate: '2026-11-25T09:00:00' },
      { ShipmentStatus: 'readyforpublish' },
      { ShipmentStatus: 1, DeliveryType: 'private' },
      // A client that always sends the customs block, empty on a domestic shipment.
      { CustomsInformation: {} },
      { CustomsInformation: { Lines: null } },
      {
        ProductCode: 'EP',
        RecipientCountry: 'se',
        RecipientZip: '111 22',
        CustomsInformation: {
          Lines: [
            {
              CountryOfOrigin: 'NO',
              GrossWeight: 16,
              NetWeight: 15,
              GoodsDescription: 'Books',
              HsCode: '490199',
              GoodsValue: 1200,
              CurrencyType: 'NOK',
              Quantity: 10,
            },
          ],
        },
      },
    ] as Body[]) {
      const body = booking(over);
      if (over.Services && (over.Services as string[]).includes('35')) {
        // Fix Day with a valid desired date, taken from the schedule.
        const plan = await ctx.app.inject({
          url: '/v1/schedule/deliverydates?fromZip=0154&toZip=5003&productCode=43&pickupDate=2026-11-23',
          headers: bearer(key),
        });
        body.DeliveryDate = json<{ DeliveryDates: string[] }>(plan).DeliveryDates.at(-1);
      }
      const res = await post(body);
      expect(res.statusCode, JSON.stringify([over, res.json()])).toBe(201);
    }
  });

  test('a Direct DeliveryDate is judged from its PickupDate even when another field is wrong', async () => {
    // Picked up Thursday 26 November: the earliest delivery is Friday 27, so Monday 30 is valid,
    // though it is more than 3 days after the earliest delivery of a pickup today.
    const direct = { ProductCode: 'DI', PickupDate: '2026-11-26', DeliveryDate: '2026-11-30' };
    expect((await post(booking({ ...direct, ShipmentStatus: 'Draft' }))).statusCode).toBe(201);
    const res = await post(booking({ ...direct, UnitCode: 'ZZ' }));
    expect(res.statusCode).toBe(400);
    expect(Object.keys(errorsOf(res))).toEqual(['UnitCode']);
  });

  test('a body that is not an object, or not JSON, is a 400 problem', async () => {
    expect((await post([1, 2])).statusCode).toBe(400);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/Shipment/Update',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: '{"Parcels": [',
    });
    expect(res.statusCode).toBe(400);
  });

  test('schema errors and domain rules are reported together in one 400', async () => {
    const before = (await ctx.database.db.select().from(shipments)).length;
    const res = await post(
      booking({
        ProductCode: '9999', // a rule: no such product
        RecipientZip: '0000', // a rule: no such postal code
        SenderReference: { text: 'PO-1' }, // the schema: not a string
        Parcels: [
          { Weight: 12.5 },
          { Weight: true }, // the schema: not a number
          'parcel', // the schema: not an object
          { Weight: 3, ParcelId: 'P-1' },
          { Weight: 3, ParcelId: 'P-1' }, // a rule: the same ParcelId twice
        ],
      }),
    );
    expect(res.statusCode).toBe(400);
    const errors = errorsOf(res);
    expect(Object.keys(errors).sort()).toEqual(
      [
        'ProductCode',
        'RecipientZip',
        'SenderReference',
        'Parcels[1].Weight',
        'Parcels[2]',
        'Parcels[4].ParcelId',
      ].sort(),
    );
    expect(errors.ProductCode).toEqual(['Product code 9999 does not exist.']);
    // Nothing was written.
    expect(await ctx.database.db.select().from(shipments)).toHaveLength(before);
  });

  test('a rule is not judged on a field the schema refused', async () => {
    // CustomerId refused by the schema: the customer rule (and the payer rules) stay silent.
    const res = await post(booking({ CustomerId: { nr: '1000' }, ProductCode: '9999' }));
    expect(res.statusCode).toBe(400);
    expect(Object.keys(errorsOf(res)).sort()).toEqual(['CustomerId']);
  });

  test('property names bind case-insensitively', async () => {
    const lower = Object.fromEntries(Object.entries(booking()).map(([k, v]) => [k.toLowerCase(), v]));
    expect((await post(lower)).statusCode).toBe(201);
  });
});

describe('updates', () => {
  test('parcels are upserted: update by ParcelId, add, delete; the rest stay', async () => {
    const created = json<UpdateResult>(
      await post(
        booking({ ShipmentStatus: 'Draft', Parcels: [{ Weight: 1 }, { Weight: 2 }, { Weight: 3 }] }),
      ),
    );
    const [a, b, c] = created.ParcelIds;
    const res = await post(
      booking({
        ShipmentStatus: 'Draft',
        ShipmentId: created.ShipmentId,
        Parcels: [
          { ParcelId: a, Weight: 10 },
          { ParcelId: b, Delete: true },
          { Weight: 4 },
          { ParcelId: 'MY-OWN-1', Weight: 5 },
        ],
      }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers.location).toBe(`/v2/Shipment/${created.ShipmentId}`);
    const ids = json<UpdateResult>(res).ParcelIds;
    expect(ids.slice(0, 2)).toEqual([a, c]);
    expect(ids[3]).toBe('MY-OWN-1');
    expect(ids).toHaveLength(4);
    const weights = json<{ ParcelId: string; Weight: number }[]>(await read(created.ShipmentId)).map((r) => [
      r.ParcelId,
      r.Weight,
    ]);
    expect(weights).toEqual([
      [a, 10],
      [c, 3],
      [ids[2], 4],
      ['MY-OWN-1', 5],
    ]);
  });

  test('a customer-given ParcelId already used by another shipment is a 400', async () => {
    await post(booking({ ShipmentStatus: 'Draft', Parcels: [{ ParcelId: 'UNIQUE-77', Weight: 1 }] }));
    const res = await post(
      booking({ ShipmentStatus: 'Draft', Parcels: [{ ParcelId: 'UNIQUE-77', Weight: 1 }] }),
    );
    expect(Object.keys(errorsOf(res))).toEqual(['Parcels[0].ParcelId']);
  });

  test('deleting every parcel of a draft cancels it', async () => {
    const created = json<UpdateResult>(
      await post(booking({ ShipmentStatus: 'Draft', Parcels: [{ Weight: 1 }] })),
    );
    const res = await post(
      booking({
        ShipmentStatus: 'Draft',
        ShipmentId: created.ShipmentId,
        Parcels: [{ ParcelId: created.ParcelIds[0], Delete: true }],
      }),
    );
    expect(res.statusCode).toBe(200);
    expect((await read(created.ShipmentId)).statusCode).toBe(404);
  });

  test('Draft → ReadyForPublish → Published; then every update is 409', async () => {
    const created = json<UpdateResult>(await post(booking({ ShipmentStatus: 'Draft' })));
    const ready = await post(booking({ ShipmentStatus: 'ReadyForPublish', ShipmentId: created.ShipmentId }));
    expect(json<UpdateResult>(ready).ShipmentStatus).toBe(1);
    const back = await post(booking({ ShipmentStatus: 'Draft', ShipmentId: created.ShipmentId }));
    expect(json<UpdateResult>(back).ShipmentStatus).toBe(0);
    const published = await post(booking({ ShipmentId: created.ShipmentId }));
    expect(published.statusCode).toBe(200);
    const again = await post(booking({ ShipmentId: created.ShipmentId, ShipmentStatus: 'Draft' }));
    expect(again.statusCode).toBe(409);
    expect(json(again).detail).toMatch(/Published/);
  });

  test('a customer-given GSIN creates, then updates', async () => {
    const id = '73123459876543212';
    expect(isGsin(id)).toBe(true);
    expect((await post(booking({ ShipmentStatus: 'Draft', ShipmentId: id }))).statusCode).toBe(201);
    expect((await post(booking({ ShipmentStatus: 'Draft', ShipmentId: id }))).statusCode).toBe(200);
  });

  test('a customer-given SSCC is a ShipmentId too; a wrong check digit is not', async () => {
    const id = '370900019876543219';
    expect(isSscc(id)).toBe(true);
    const created = await post(booking({ ShipmentStatus: 'Draft', ShipmentId: id }));
    expect(created.statusCode, created.body).toBe(201);
    expect(json<UpdateResult>(created).ShipmentId).toBe(id);
    expect((await post(booking({ ShipmentStatus: 'Draft', ShipmentId: id }))).statusCode).toBe(200);
    expect((await read(id)).statusCode).toBe(200);
    const wrong = await post(booking({ ShipmentStatus: 'Draft', ShipmentId: '370900019876543210' }));
    expect(wrong.statusCode).toBe(400);
    expect(Object.keys(errorsOf(wrong))).toEqual(['ShipmentId']);
  });

  test("a customer may book numbers of the carrier's own range; Kolli's next numbers go round them", async () => {
    // CONTRACT §5: a client-chosen ShipmentId under any GS1 prefix, a customer-given ParcelId kept as
    // given; and generated ids never collide. Here a client takes the very next GSIN and SSCC Kolli
    // would draw.
    const drawn = json<UpdateResult>(await post(booking({ ShipmentStatus: 'Draft' })));
    const prefix = ctx.config.gs1Prefix;
    const nextShipment = gsin(prefix, BigInt(drawn.ShipmentId.slice(prefix.length, 16)) + 1n);
    const nextParcel = sscc(prefix, BigInt(String(drawn.ParcelIds[1]).slice(prefix.length + 1, 17)) + 1n);
    const taken = await post(
      booking({
        ShipmentStatus: 'Draft',
        CustomerId: '2000',
        ShipmentId: nextShipment,
        // Its own parcel without a number gets the one after: never the number it gives the other.
        Parcels: [{ Weight: 1 }, { ParcelId: nextParcel, Weight: 1 }],
      }),
      otherKey,
    );
    expect(taken.statusCode, taken.body).toBe(201);
    const takenIds = json<UpdateResult>(taken);
    expect(takenIds.ShipmentId).toBe(nextShipment);
    expect(takenIds.ParcelIds[1]).toBe(nextParcel);
    expect(isSscc(String(takenIds.ParcelIds[0])) && takenIds.ParcelIds[0] !== nextParcel).toBe(true);
    // The next booking was to get those numbers: it is written with the ones after them.
    const next = await post(booking({ ShipmentStatus: 'Draft' }));
    expect(next.statusCode, next.body).toBe(201);
    const ids = json<UpdateResult>(next);
    expect(ids.ShipmentId).not.toBe(nextShipment);
    expect(ids.ParcelIds).not.toContain(nextParcel);
    expect(isGsin(ids.ShipmentId) && ids.ShipmentId.startsWith(prefix)).toBe(true);
    // A number the carrier drew is still named to update the shipment that holds it.
    const again = await post(
      booking({
        ShipmentStatus: 'Draft',
        ShipmentId: ids.ShipmentId,
        Parcels: [{ ParcelId: ids.ParcelIds[0], Weight: 2 }],
      }),
    );
    expect(again.statusCode, again.body).toBe(200);
  });

  test("a client that books the numbers ahead of Kolli's makes no other booking fail", async () => {
    const drawn = json<UpdateResult>(await post(booking({ ShipmentStatus: 'Draft' })));
    const prefix = ctx.config.gs1Prefix;
    const numberAfter = (id: string, offset: bigint, ssccId = true) =>
      ssccId
        ? sscc(prefix, BigInt(id.slice(prefix.length + 1, 17)) + offset)
        : gsin(prefix, BigInt(id.slice(prefix.length, 16)) + offset);
    const lastParcel = String(drawn.ParcelIds.at(-1));
    // The next five parcel numbers and shipment numbers Kolli holds, booked by another customer.
    for (let i = 1n; i <= 5n; i++) {
      const res = await post(
        booking({
          ShipmentStatus: 'Draft',
          CustomerId: '2000',
          ShipmentId: numberAfter(drawn.ShipmentId, i, false),
          Parcels: [{ ParcelId: numberAfter(lastParcel, i), Weight: 1 }],
        }),
        otherKey,
      );
      expect(res.statusCode, res.body).toBe(201);
    }
    for (let i = 0; i < 5; i++) {
      const res = await post(booking({ ShipmentStatus: 'Draft', Parcels: [{ Weight: 1 }] }));
      expect(res.statusCode, res.body).toBe(201);
    }
  });

  test('members the schema does not declare are ignored, never read unvalidated', async () => {
    // v1 has no pickup point name, phone or e-mail; undeclared, they never reach the rules (once a 500).
    const res = await post(
      booking({
        ShipmentStatus: 'Draft',
        PickupPointFirstName: { a: 1 },
        PickupPointPhone: [1],
        ReturnCompanyNam: 'typo',
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const [record] = json<{ Addresses: { AddressTypeId: number }[] }[]>(
      await read(json<UpdateResult>(res).ShipmentId),
    );
    expect(record?.Addresses.map((a) => a.AddressTypeId).sort()).toEqual([1, 2]);
  });

  test('an optional text left empty ("") is "not given": generated, defaulted or read back as null', async () => {
    // What a .NET or Java client sends for a string it never set (CONTRACT §2).
    const empty = {
      ShipmentId: '',
      UnitCode: '',
      DeliveryDate: ' ',
      CommentToCarrier: '',
      PickupEmail: '',
      PickupPhone: '',
      PickupCountry: '',
      RecipientEmail: '',
      RecipientPhone: '  ',
      RecipientAddress2: '',
      ReturnZip: '',
      ReturnEmail: '',
      PickupPointZip: '',
    };
    const res = await post(
      booking({
        ...empty,
        Parcels: [
          { Weight: 2, ParcelId: '' },
          { Weight: 3, ParcelId: '  ' },
        ],
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const { ShipmentId, ParcelIds } = json<UpdateResult>(res);
    expect(ShipmentId).toMatch(/^\d{17}$/);
    for (const id of ParcelIds) expect(id).toMatch(/^\d{18}$/);
    const [record] = json<Record<string, unknown>[]>(await read(ShipmentId));
    expect(record).toMatchObject({
      UnitCode: 'KL',
      CommentToCarrier: null,
      PickupEmail: null,
      PickupPhone: null,
      RecipientEmail: null,
      RecipientPhone: null,
      ReturnEmail: null,
    });
    const addresses = record?.Addresses as Record<string, unknown>[];
    expect(addresses.find((a) => a.AddressTypeId === 1)).toMatchObject({ Country: 'NO' });
    expect(addresses.find((a) => a.AddressTypeId === 2)).toMatchObject({ Address2: null });
    // A required text is not optional: empty, it is still a 400 naming it.
    expect(Object.keys(errorsOf(await post(booking({ ProductCode: '' }))))).toEqual(['ProductCode']);
  });

  test("publishing onto another customer's shipment tells nothing of its parcels", async () => {
    const theirs = json<UpdateResult>(
      await post(
        booking({
          ShipmentStatus: 'Draft',
          CustomerId: '2000',
          Parcels: [{ ParcelId: 'THEIRS-1', Weight: 400 }],
        }),
        otherKey,
      ),
    );
    // Were their 400 kg priced with these 400 kg, product 43's shipment limit would be the answer.
    const answers = await Promise.all(
      [{ ParcelId: 'THEIRS-1', Delete: true }, { ParcelId: 'GUESS', Delete: true }, { Weight: 400 }].map(
        async (parcel) =>
          errorsOf(await post(booking({ ShipmentId: theirs.ShipmentId, Parcels: [{ Weight: 1 }, parcel] }))),
      ),
    );
    for (const errors of answers) expect(Object.keys(errors)).toEqual(['ShipmentId']);
  });

  test('a publish names the parcels by their place in the request, not among the stored ones', async () => {
    const draft = json<UpdateResult>(
      await post(booking({ ShipmentStatus: 'Draft', Parcels: [{ Weight: 1 }, { Length: 10 }] })),
    );
    const publish = await post(
      booking({ ShipmentId: draft.ShipmentId, Parcels: [{ ParcelId: draft.ParcelIds[1] }] }),
    );
    expect(publish.statusCode).toBe(400);
    expect(Object.keys(errorsOf(publish))).toEqual(['Parcels[0].Weight']);
    const none = await post(booking({ ShipmentId: draft.ShipmentId, Parcels: [] }));
    expect(Object.keys(errorsOf(none))).toEqual(['Parcels']);
  });

  test('a Weight of 0 is not given (a .NET client’s unset decimal): a Draft keeps it open, a publish asks for it', async () => {
    const draft = await post(booking({ ShipmentStatus: 'Draft', Parcels: [{ Weight: 0, Length: 0 }] }));
    expect(draft.statusCode, draft.body).toBe(201);
    const [record] = json<object[]>(await read(json<UpdateResult>(draft).ShipmentId));
    expect(record).toHaveProperty('Weight', null);
    const published = await post(booking({ ShipmentStatus: 'Published', Parcels: [{ Weight: 0 }] }));
    expect(published.statusCode).toBe(400);
    expect(errorsOf(published)['Parcels[0].Weight']?.[0]).toContain('needs a Weight above 0');
  });

  test('a weight or volume below what is stored (1 g, 1 cm³) is a 400, not a stored 0', async () => {
    const res = await post(booking({ ShipmentStatus: 'Draft', Parcels: [{ Weight: 0.0004, Volume: 1e-9 }] }));
    expect(res.statusCode).toBe(400);
    expect(Object.keys(errorsOf(res)).sort()).toEqual(['Parcels[0].Volume', 'Parcels[0].Weight']);
    expect((await post(booking({ ShipmentStatus: 'Draft', Parcels: [{ Weight: 0.001 }] }))).statusCode).toBe(
      201,
    );
  });

  test('a customer-given ParcelId holds only what its Code 128 barcode carries (a blank one is not given)', async () => {
    const res = await post(
      booking({
        ShipmentStatus: 'Draft',
        Parcels: [
          { ParcelId: 'x'.repeat(36), Weight: 1 },
          { ParcelId: 'A\nB', Weight: 1 },
          { ParcelId: '📦box', Weight: 1 },
          { ParcelId: 'Łódź-1', Weight: 1 },
        ],
      }),
    );
    expect(Object.keys(errorsOf(res)).sort()).toEqual([
      'Parcels[0].ParcelId',
      'Parcels[1].ParcelId',
      'Parcels[2].ParcelId',
      'Parcels[3].ParcelId',
    ]);
    const fine = await post(
      booking({
        ShipmentStatus: 'Draft',
        Parcels: [
          { ParcelId: 'Pakke Ø 1', Weight: 1 },
          { ParcelId: 'ÆØÅ-ÿ', Weight: 1 },
        ],
      }),
    );
    expect(fine.statusCode, fine.body).toBe(201);
  });

  test('abroad, a desired DeliveryDate is from the working day after the pickup on', async () => {
    // Monday 23 November, before the cut-off: picked up today.
    const sameDay = await post(booking({ ...toGothenburg(), DeliveryDate: '2026-11-23' }));
    expect(Object.keys(errorsOf(sameDay))).toEqual(['DeliveryDate']);
    const nextDay = await post(booking({ ...toGothenburg(), DeliveryDate: '2026-11-24' }));
    expect(nextDay.statusCode, nextDay.body).toBe(201);
  });

  test('customer-given ParcelIds are kept as given', async () => {
    const created = await post(
      booking({ ShipmentStatus: 'Draft', Parcels: [{ ParcelId: 'Kunde-PK 0001/a', Weight: 2 }] }),
    );
    expect(created.statusCode, created.body).toBe(201);
    expect(json<UpdateResult>(created).ParcelIds).toEqual(['Kunde-PK 0001/a']);
    const records = json<{ ParcelId: string }[]>(await read(json<UpdateResult>(created).ShipmentId));
    expect(records.map((r) => r.ParcelId)).toEqual(['Kunde-PK 0001/a']);
  });

  test('If-Match with a stale ETag is 412; with the current one the update applies', async () => {
    const created = await post(booking({ ShipmentStatus: 'Draft' }));
    const { ShipmentId } = json<UpdateResult>(created);
    const etag = String(created.headers.etag);
    expect(
      (await post(booking({ ShipmentStatus: 'Draft', ShipmentId }), key, { 'if-match': etag })).statusCode,
    ).toBe(200);
    const stale = await post(booking({ ShipmentStatus: 'Draft', ShipmentId }), key, { 'if-match': etag });
    expect(stale.statusCode).toBe(412);
    expect(stale.headers['content-type']).toMatch(/problem\+json/);
  });
});

describe('return shipments', () => {
  /** A publishable HE booking (or `ProductCode` HJ) to a private recipient, with its return generated. */
  const withReturn = (over: Body = {}) =>
    booking({
      ProductCode: 'HE',
      DeliveryType: 0,
      ShouldGenerateReturnShipment: true,
      RecipientCompanyName: undefined,
      ...over,
    });

  test('HE with ShouldGenerateReturnShipment creates a linked return with sender and recipient swapped', async () => {
    const res = await post(withReturn());
    expect(res.statusCode).toBe(201);
    const { ShipmentId, ReturnShipmentId } = json<UpdateResult>(res);
    expect(ReturnShipmentId && isGsin(ReturnShipmentId)).toBe(true);
    type Dated = { PickupDate: string | null; DeliveryDate: string | null };
    const records = json<
      (Dated & { IsReturn: boolean; Addresses: { AddressTypeId: number; Zip: string }[] })[]
    >(await read(String(ReturnShipmentId)));
    expect(records).toHaveLength(2);
    expect(records[0]?.IsReturn).toBe(true);
    expect(records[0]?.Addresses.map((a) => [a.AddressTypeId, a.Zip])).toEqual([
      [1, '5003'],
      [2, '0154'],
    ]);

    // Published with its original, planned for pickup the working day after the original's delivery
    // (once the same day as the original's pickup: a driver sent for goods not yet delivered), and
    // listed for Bergen that day.
    const [original] = json<Dated[]>(await read(ShipmentId));
    expect(original?.PickupDate?.slice(0, 10)).toBe('2026-11-23');
    expect(original?.DeliveryDate?.slice(0, 10)).toBe('2026-11-24');
    const day = '2026-11-25';
    expect(records[0]?.PickupDate?.slice(0, 10)).toBe(day);
    expect(records[0]?.DeliveryDate?.slice(0, 10)).toBe('2026-11-26');
    const listed = await ctx.app.inject({
      url: `/v1/shipment/list?postalcode=5003&customerid=1000&pickupFromDate=${day}&pickupToDate=${day}`,
      headers: bearer(key),
    });
    expect(json<{ ShipmentId: string }[]>(listed).map((r) => r.ShipmentId)).toContain(ReturnShipmentId);
    // Its shipment.published event names the dates, as every such event does.
    const events = await ctx.database.db
      .select()
      .from(outboxEvents)
      .where(eq(outboxEvents.shipmentId, String(ReturnShipmentId)));
    expect(events.find((e) => e.type === 'shipment.published')?.data).toMatchObject({
      PickupDate: day,
      DeliveryDate: records[0]?.DeliveryDate?.slice(0, 10),
      IsReturn: true,
      ReturnOf: ShipmentId,
    });
  });

  test('a return of a Fix Day delivery is planned from the working day after the desired date', async () => {
    const res = await post(withReturn({ Services: ['35'], DeliveryDate: '2026-11-27' }));
    expect(res.statusCode, res.body).toBe(201);
    const records = json<{ PickupDate: string | null }[]>(
      await read(String(json<UpdateResult>(res).ReturnShipmentId)),
    );
    // Delivered on Friday 27 November: back from Monday 30 November.
    expect(records[0]?.PickupDate?.slice(0, 10)).toBe('2026-11-30');
  });

  /** A published HJ shipment with its generated return shipment. */
  const bookWithReturn = async () => json<UpdateResult>(await post(withReturn({ ProductCode: 'HJ' })));
  const cancel = (id: string | null) =>
    ctx.app.inject({ method: 'DELETE', url: `/v2/Shipment/${id}`, headers: bearer(key) });

  test("a return shipment's numbers never repeat its original's, chosen from the carrier's range", async () => {
    // The original takes numbers Kolli holds next; its return is drawn in the same write, and goes
    // round them at once (not by failing on them and writing again).
    const drawn = json<UpdateResult>(await post(booking({ ShipmentStatus: 'Draft' })));
    const prefix = ctx.config.gs1Prefix;
    const nextGsin = gsin(prefix, BigInt(drawn.ShipmentId.slice(prefix.length, 16)) + 2n);
    const lastParcel = BigInt(String(drawn.ParcelIds.at(-1)).slice(prefix.length + 1, 17));
    const res = await post(
      withReturn({
        ShipmentId: gsin(prefix, BigInt(drawn.ShipmentId.slice(prefix.length, 16)) + 1n),
        Parcels: [
          { ParcelId: sscc(prefix, lastParcel + 1n), Weight: 2 },
          { ParcelId: sscc(prefix, lastParcel + 3n), Weight: 3 },
        ],
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const { ReturnShipmentId } = json<UpdateResult>(res);
    expect(ReturnShipmentId).toBe(nextGsin);
    const returned = json<{ ParcelId: string }[]>(await read(String(ReturnShipmentId)));
    expect(returned.map((r) => r.ParcelId)).toEqual([
      sscc(prefix, lastParcel + 2n),
      sscc(prefix, lastParcel + 4n),
    ]);
  });

  test('cancelling the shipment cancels its return shipment too', async () => {
    const { ShipmentId, ReturnShipmentId } = await bookWithReturn();
    expect((await cancel(ShipmentId)).statusCode).toBe(204);
    expect((await read(String(ReturnShipmentId))).statusCode).toBe(404);
    const events = await ctx.database.db
      .select()
      .from(outboxEvents)
      .where(eq(outboxEvents.shipmentId, String(ReturnShipmentId)));
    expect(events.map((e) => e.type)).toContain('shipment.cancelled');
  });

  test('a return shipment cancelled on its own names its original in the event', async () => {
    const { ShipmentId, ReturnShipmentId } = await bookWithReturn();
    expect((await cancel(ReturnShipmentId)).statusCode).toBe(204);
    const [event] = await ctx.database.db
      .select()
      .from(outboxEvents)
      .where(
        and(
          eq(outboxEvents.shipmentId, String(ReturnShipmentId)),
          eq(outboxEvents.type, 'shipment.cancelled'),
        ),
      );
    expect(event?.data).toMatchObject({ IsReturn: true, ReturnOf: ShipmentId });
  });
});

describe('cancel', () => {
  test('a published shipment can be cancelled until pickup; reads then answer 404', async () => {
    const { ShipmentId } = json<UpdateResult>(await post(booking()));
    const del = await ctx.app.inject({
      method: 'DELETE',
      url: `/v2/Shipment/${ShipmentId}`,
      headers: bearer(key),
    });
    expect(del.statusCode).toBe(204);
    expect((await read(ShipmentId)).statusCode).toBe(404);
    expect(
      (await ctx.app.inject({ method: 'DELETE', url: `/v2/Shipment/${ShipmentId}`, headers: bearer(key) }))
        .statusCode,
    ).toBe(404);
  });

  test('after the first pickup scan cancelling is 409', async () => {
    const { ShipmentId } = json<UpdateResult>(await post(booking()));
    await ctx.database.db.update(shipments).set({ pickedUpAt: NOW }).where(eq(shipments.id, ShipmentId));
    const del = await ctx.app.inject({
      method: 'DELETE',
      url: `/v2/Shipment/${ShipmentId}`,
      headers: bearer(key),
    });
    expect(del.statusCode).toBe(409);
  });
});

describe('tenant isolation', () => {
  test('another customer cannot read, update or cancel the shipment', async () => {
    const { ShipmentId } = json<UpdateResult>(await post(booking({ ShipmentStatus: 'Draft' })));
    expect((await read(ShipmentId, otherKey)).statusCode).toBe(404);
    const steal = await post(booking({ ShipmentStatus: 'Draft', CustomerId: '2000', ShipmentId }), otherKey);
    expect(steal.statusCode).toBe(400);
    expect(Object.keys(errorsOf(steal))).toEqual(['ShipmentId']);
    expect(
      (
        await ctx.app.inject({
          method: 'DELETE',
          url: `/v2/Shipment/${ShipmentId}`,
          headers: bearer(otherKey),
        })
      ).statusCode,
    ).toBe(404);
    const foreign = await post(booking({ CustomerId: '1000' }), otherKey);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.headers['content-type']).toMatch(/text\/plain/);
  });
});

describe('idempotency', () => {
  test('the same key and body replay the first answer without booking again', async () => {
    const body = booking({ SenderReference: 'IDEM-1' });
    const first = await post(body, key, { 'idempotency-key': 'idem-1' });
    const second = await post(body, key, { 'idempotency-key': 'idem-1' });
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.json()).toEqual(first.json());
    expect(second.headers.location).toBe(first.headers.location);
    expect(second.headers['idempotent-replayed']).toBe('true');
    const rows = await ctx.database.db
      .select()
      .from(shipments)
      .where(eq(shipments.senderReference, 'IDEM-1'));
    expect(rows).toHaveLength(1);
  });

  test('two Idempotency-Key headers are a 400, not one key made of both', async () => {
    const res = await post(booking({ SenderReference: 'IDEM-6' }), key, {
      'idempotency-key': ['idem-6a', 'idem-6b'],
    } as unknown as Record<string, string>);
    expect(Object.keys(errorsOf(res))).toEqual(['Idempotency-Key']);
    const rows = await ctx.database.db
      .select()
      .from(shipments)
      .where(eq(shipments.senderReference, 'IDEM-6'));
    expect(rows).toEqual([]);
  });

  test('the same key with another body is 422', async () => {
    await post(booking({ SenderReference: 'IDEM-2' }), key, { 'idempotency-key': 'idem-2' });
    const res = await post(booking({ SenderReference: 'IDEM-2b' }), key, { 'idempotency-key': 'idem-2' });
    expect(res.statusCode).toBe(422);
  });

  test('concurrent duplicates book once: the others replay or get 409', async () => {
    const body = booking({ SenderReference: 'IDEM-3' });
    const results = await Promise.all(
      Array.from({ length: 4 }, () => post(body, key, { 'idempotency-key': 'idem-3' })),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const rows = await ctx.database.db
      .select()
      .from(shipments)
      .where(eq(shipments.senderReference, 'IDEM-3'));
    expect(rows).toHaveLength(1);
  });

  test('two retries after a dead claim: exactly one takes it over and books', async () => {
    const body = booking({ SenderReference: 'IDEM-5' });
    expect((await post(body, key, { 'idempotency-key': 'idem-5' })).statusCode).toBe(201);
    // Make the claim look like one whose request died an hour ago without an answer.
    await ctx.database.db
      .update(idempotencyKeys)
      .set({ responseStatus: null, responseBody: null, createdAt: new Date(Date.now() - 3_600_000) })
      .where(eq(idempotencyKeys.key, 'idem-5'));
    const retries = await Promise.all([
      post(body, key, { 'idempotency-key': 'idem-5' }),
      post(body, key, { 'idempotency-key': 'idem-5' }),
    ]);
    // One books; the other gets 409 while it runs, or its replay once it has answered.
    const fresh = retries.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] !== 'true');
    expect(fresh).toHaveLength(1);
    expect(retries.every((r) => r.statusCode === 201 || r.statusCode === 409)).toBe(true);
    // A claim not yet answered (its request still running, or dead within its lease) says when to
    // try again: by the end of its lease it is answered or may be taken over.
    await ctx.database.db
      .update(idempotencyKeys)
      .set({ responseStatus: null, responseBody: null, createdAt: new Date() })
      .where(eq(idempotencyKeys.key, 'idem-5'));
    const busy = await post(body, key, { 'idempotency-key': 'idem-5' });
    expect(busy.statusCode).toBe(409);
    expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(busy.headers['retry-after'])).toBeLessThanOrEqual(30);
    const rows = await ctx.database.db
      .select()
      .from(shipments)
      .where(eq(shipments.senderReference, 'IDEM-5'));
    expect(rows).toHaveLength(2); // the first booking and the one retry that took over
  });

  // PostgreSQL only: the embedded database reads the process's own clock, so no host differs from it.
  test.runIf(process.env.KOLLI_TEST_DB === 'postgres')(
    "a claim's lease is judged by the database's clock, not a host's that differs from it",
    async () => {
      const body = booking({ SenderReference: 'IDEM-8' });
      expect((await post(body, key, { 'idempotency-key': 'idem-8' })).statusCode).toBe(201);
      // Dead for an hour by the database's clock, which dated it.
      await ctx.database.db
        .update(idempotencyKeys)
        .set({ responseStatus: null, responseBody: null, createdAt: sql`now() - interval '1 hour'` })
        .where(eq(idempotencyKeys.key, 'idem-8'));
      // This host's clock is two hours behind: by it the claim would not be born yet, so still in flight.
      const real = Date.now();
      const skewed = vi.spyOn(Date, 'now').mockImplementation(() => real - 2 * 3_600_000);
      try {
        const retry = await post(body, key, { 'idempotency-key': 'idem-8' });
        expect(retry.statusCode, retry.body).toBe(201);
        expect(retry.headers['idempotent-replayed']).toBeUndefined();
      } finally {
        skewed.mockRestore();
      }
    },
  );

  test('a key past its replay window books anew at once, before any prune removed its record', async () => {
    const body = booking({ SenderReference: 'IDEM-9' });
    expect((await post(body, key, { 'idempotency-key': 'idem-9' })).statusCode).toBe(201);
    // 25 hours old by the database's clock, with its microseconds (PostgreSQL keeps them).
    await ctx.database.db
      .update(idempotencyKeys)
      .set({ createdAt: sql`now() - interval '25 hours 0.123456 seconds'` })
      .where(eq(idempotencyKeys.key, 'idem-9'));
    const again = await post(booking({ SenderReference: 'IDEM-9b' }), key, { 'idempotency-key': 'idem-9' });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });

  test('records past the replay window are pruned, in batches; the key books anew after', async () => {
    const body = booking({ SenderReference: 'IDEM-7' });
    for (const k of ['idem-7a', 'idem-7b', 'idem-7c']) {
      expect((await post(body, key, { 'idempotency-key': k })).statusCode).toBe(201);
    }
    const kept = async () =>
      (await ctx.database.db.select().from(idempotencyKeys)).filter((r) => r.key.startsWith('idem-7'));
    // Until 24 h after the first of them all three are replayed; past 24 h after the last, all go
    // (with any older records of other tests), two a statement here.
    const times = (await kept()).map((r) => r.createdAt.getTime());
    await ctx.services.idempotency.prune(new Date(Math.min(...times) + 24 * 3_600_000 - 1000), undefined, 2);
    expect(await kept()).toHaveLength(3);
    const created = Math.max(...times);
    const pruned = await ctx.services.idempotency.prune(
      new Date(created + 24 * 3_600_000 + 1000),
      undefined,
      2,
    );
    expect(pruned).toBeGreaterThanOrEqual(3);
    expect(await kept()).toEqual([]);
    const again = await post(body, key, { 'idempotency-key': 'idem-7a' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });

  test('a rejected request frees its key for a corrected retry', async () => {
    const bad = await post(booking({ ProductCode: 'ZZ' }), key, { 'idempotency-key': 'idem-4' });
    expect(bad.statusCode).toBe(400);
    expect((await post(booking(), key, { 'idempotency-key': 'idem-4' })).statusCode).toBe(201);
  });
});

describe('concurrency and events', () => {
  test('concurrent creates get distinct shipment and parcel ids', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, () => post(booking({ ShipmentStatus: 'Draft' }))),
    );
    const bodies = results.map((r) => json<UpdateResult>(r));
    expect(new Set(bodies.map((b) => b.ShipmentId)).size).toBe(12);
    expect(new Set(bodies.flatMap((b) => b.ParcelIds)).size).toBe(24);
  });

  test('create, update, publish and cancel write outbox events in the same transaction', async () => {
    const created = json<UpdateResult>(await post(booking({ ShipmentStatus: 'Draft' })));
    await post(booking({ ShipmentId: created.ShipmentId }));
    await ctx.app.inject({
      method: 'DELETE',
      url: `/v2/Shipment/${created.ShipmentId}`,
      headers: bearer(key),
    });
    const events = await ctx.database.db
      .select()
      .from(outboxEvents)
      .where(eq(outboxEvents.shipmentId, created.ShipmentId));
    expect(events.map((e) => e.type)).toEqual([
      'shipment.created',
      'shipment.updated',
      'shipment.published',
      'shipment.cancelled',
    ]);
    expect(events[0]?.parcelIds).toEqual(created.ParcelIds);
  });

  test('a rejected request writes nothing', async () => {
    const before = (await ctx.database.db.select().from(parcels)).length;
    await post(booking({ ProductCode: 'ZZ', Parcels: Array.from({ length: 50 }, () => ({ Weight: 1 })) }));
    expect((await ctx.database.db.select().from(parcels)).length).toBe(before);
  });
});

import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osloBergenAddresses, osloBergenBooking } from '../../test/factories';
import { bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import { outboxEvents } from '../events/tables';
import { gsin, isGsin } from '../lib/gs1';
import { shipments } from './tables';

// The drop-in booking paths (CONTRACT §14): `/Shipment/Book` (v1 body), `/v2/Shipment/Book` and
// `/v2/Shipment/Update` (the v2 body with `Addresses`), one rule set and one store with v1.

// Monday 23 November 2026, 10:00 in Oslo.
const NOW = new Date('2026-11-23T09:00:00Z');

let ctx: TestContext;
let key: string;

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => NOW });
  key = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['booking', 'shipments'] });
});
afterAll(() => ctx.close());

type Body = Record<string, unknown>;
type Address = Record<string, unknown> & { AddressTypeId: number };
interface UpdateResult {
  ShipmentId: string;
  ShipmentStatus: number;
  ParcelIds: string[];
  ReturnShipmentId: string | null;
}
type ShipmentRecord = Record<string, unknown> & { Addresses: Address[]; ParcelId: string };

const [PICKUP, OSLO_BERGEN_RECIPIENT] = osloBergenAddresses() as [Address, Address];
const RECIPIENT: Address = { ...OSLO_BERGEN_RECIPIENT, FirstName: 'Åse', LastName: 'Øvrebø' };

/** A publishable v2 body from Oslo to Bergen. */
const v2 = (over: Body = {}): Body => ({
  ShipmentStatus: 'Published',
  CustomerId: '1000',
  ProductCode: '43',
  DeliveryType: 1,
  Services: [],
  SenderReference: 'PO-4711',
  Addresses: [PICKUP, RECIPIENT],
  PickupPhone: '+47 22 00 00 00',
  RecipientEmail: 'post@fjordfrakt.no',
  Parcels: [{ Weight: 12.5, Length: 60, Width: 40, Height: 30 }, { Weight: 3 }],
  ...over,
});

/** The same shipment as a v1 body. */
const v1 = (over: Body = {}): Body =>
  osloBergenBooking({
    Services: [],
    SenderReference: 'PO-4711',
    PickupPhone: '+47 22 00 00 00',
    RecipientFirstName: 'Åse',
    RecipientLastName: 'Øvrebø',
    RecipientEmail: 'post@fjordfrakt.no',
    Parcels: [{ Weight: 12.5, Length: 60, Width: 40, Height: 30 }, { Weight: 3 }],
    ...over,
  });

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'POST', url, headers: { ...bearer(key), ...headers }, payload: body as Body });
const read = async (id: string) => {
  const res = await ctx.app.inject({ url: `/v2/Shipment/${id}`, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return { records: json<ShipmentRecord[]>(res), etag: String(res.headers.etag) };
};
const errorsOf = (res: { json(): unknown }) => (res.json() as { errors: Record<string, string[]> }).errors;
/** A record without what differs between two shipments of the same content. */
const content = (r: ShipmentRecord) => {
  const { ShipmentId: _s, ParcelId: _p, ...rest } = r;
  return rest;
};

let serial = 880_000;
const freshId = () => gsin('7312345', serial++);

describe('create', () => {
  test('POST /v2/Shipment/Book creates (201, Location) and the read record carries the Addresses', async () => {
    const res = await post('/v2/Shipment/Book', v2());
    expect(res.statusCode, res.body).toBe(201);
    const created = json<UpdateResult>(res);
    expect(isGsin(created.ShipmentId)).toBe(true);
    expect(res.headers.location).toBe(`/v2/Shipment/${created.ShipmentId}`);
    expect(created.ShipmentStatus).toBe(2);
    const { records } = await read(created.ShipmentId);
    expect(records).toHaveLength(2);
    expect(records[0]?.Addresses).toEqual([
      { ...PICKUP, FirstName: null, LastName: null, Address2: null, County: null, Country: 'NO' },
      { ...RECIPIENT, Address2: null, County: null, Country: 'NO' },
    ]);
    expect(records[0]?.PickupPhone).toBe('+47 22 00 00 00');
  });

  test('an empty optional text in an address element is "not given", as in the v1 body', async () => {
    const res = await post(
      '/v2/Shipment/Book',
      v2({
        ShipmentId: '',
        Addresses: [
          { ...PICKUP, Country: '', County: '' },
          { ...RECIPIENT, Address2: ' ' },
        ],
        RecipientEmail: '',
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const { records } = await read(json<UpdateResult>(res).ShipmentId);
    expect(records[0]?.Addresses.map((a) => [a.Country, a.County, a.Address2])).toEqual([
      ['NO', null, null],
      ['NO', null, null],
    ]);
    expect(records[0]?.RecipientEmail).toBeNull();
  });

  test('the Book paths only create: an existing ShipmentId is a 409 problem, v1 and v2 alike', async () => {
    const id = freshId();
    expect((await post('/Shipment/Book', v1({ ShipmentId: id, ShipmentStatus: 'Draft' }))).statusCode).toBe(
      201,
    );
    for (const [url, body] of [
      ['/Shipment/Book', v1({ ShipmentId: id, ShipmentStatus: 'Draft' })],
      ['/v2/Shipment/Book', v2({ ShipmentId: id, ShipmentStatus: 'Draft' })],
    ] as const) {
      const again = await post(url, body);
      expect(again.statusCode, url).toBe(409);
      expect(again.headers['content-type']).toMatch(/problem\+json/);
    }
    // The shipment is unchanged: still a Draft.
    expect((await read(id)).records[0]?.ParcelStatus).toBe(0);
  });

  test('two Books of the same new ShipmentId at once: one 201, one 409', async () => {
    const id = freshId();
    const body = v2({ ShipmentId: id, ShipmentStatus: 'Draft' });
    const statuses = (
      await Promise.all([post('/v2/Shipment/Book', body), post('/v2/Shipment/Book', body)])
    ).map((r) => r.statusCode);
    expect(statuses.sort()).toEqual([201, 409]);
  });

  test('v1 and v2 bodies of the same shipment give the same stored shipment and read record (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          status: fc.constantFrom('Draft', 'ReadyForPublish', 'Published'),
          weights: fc.array(fc.integer({ min: 1, max: 30_000 }), { minLength: 1, maxLength: 4 }),
          withReturn: fc.boolean(),
          firstName: fc.option(fc.constantFrom('Kari', 'Ola', 'Åse'), { nil: undefined }),
          address2: fc.option(fc.constantFrom('Bygg B', 'c/o Nordmann'), { nil: undefined }),
        }),
        async ({ status, weights, withReturn, firstName, address2 }) => {
          const parcels = weights.map((g) => ({ Weight: g / 1000 }));
          const ret = { CompanyName: 'Retur AS', Address: 'Returveien 2', Zip: '0150', Place: 'OSLO' };
          const recipient = { ...RECIPIENT, FirstName: firstName, Address2: address2 };
          const a = await post(
            '/Shipment/Update',
            v1({
              ShipmentStatus: status,
              Parcels: parcels,
              RecipientFirstName: firstName,
              RecipientAddress2: address2,
              ...(withReturn
                ? {
                    ReturnCompanyName: ret.CompanyName,
                    ReturnAddress: ret.Address,
                    ReturnZip: ret.Zip,
                    ReturnPlace: ret.Place,
                  }
                : {}),
            }),
          );
          const b = await post(
            '/v2/Shipment/Update',
            v2({
              ShipmentStatus: status,
              Parcels: parcels,
              Addresses: [PICKUP, recipient, ...(withReturn ? [{ AddressTypeId: 3, ...ret }] : [])],
            }),
          );
          expect(a.statusCode, a.body).toBe(201);
          expect(b.statusCode, b.body).toBe(201);
          const ra = await read(json<UpdateResult>(a).ShipmentId);
          const rb = await read(json<UpdateResult>(b).ShipmentId);
          expect(rb.records.map(content)).toEqual(ra.records.map(content));
          const stored = async (id: string) => {
            const [row] = await ctx.database.db.select().from(shipments).where(eq(shipments.id, id));
            return { addresses: row?.addresses, price: row?.price, status: row?.status };
          };
          expect(await stored(json<UpdateResult>(b).ShipmentId)).toEqual(
            await stored(json<UpdateResult>(a).ShipmentId),
          );
        },
      ),
      { numRuns: 6 },
    );
  });
});

describe('one store: v1 and v2 update each other', () => {
  test('made through v1, updated through v2; made through v2, updated through v1', async () => {
    const one = json<UpdateResult>(await post('/Shipment/Update', v1({ ShipmentStatus: 'Draft' })));
    const viaV2 = await post(
      '/v2/Shipment/Update',
      v2({
        ShipmentId: one.ShipmentId,
        ShipmentStatus: 'Draft',
        Addresses: [PICKUP, { ...RECIPIENT, Zip: '7010', Place: 'TRONDHEIM' }],
        Parcels: [{ ParcelId: one.ParcelIds[0], Weight: 20 }],
      }),
    );
    expect(viaV2.statusCode, viaV2.body).toBe(200);
    const { records } = await read(one.ShipmentId);
    expect(records.map((r) => r.Weight)).toEqual([20, 3]);
    expect(records[0]?.Addresses.find((a) => a.AddressTypeId === 2)?.Zip).toBe('7010');

    const two = json<UpdateResult>(await post('/v2/Shipment/Book', v2({ ShipmentStatus: 'Draft' })));
    const viaV1 = await post(
      '/Shipment/Update',
      v1({ ShipmentId: two.ShipmentId, RecipientZip: '7010', RecipientPlace: 'TRONDHEIM' }),
    );
    expect(viaV1.statusCode, viaV1.body).toBe(200);
    expect((await read(two.ShipmentId)).records[0]?.ParcelStatus).toBe(2);
  });

  test('a read record’s Addresses, sent back unchanged in a v2 body, change nothing', async () => {
    const ret = {
      AddressTypeId: 3,
      CompanyName: 'Retur AS',
      Address: 'Returveien 2',
      Zip: '0150',
      Place: 'OSLO',
    };
    const created = json<UpdateResult>(
      await post(
        '/v2/Shipment/Book',
        v2({
          ShipmentStatus: 'Draft',
          Addresses: [PICKUP, RECIPIENT, ret],
          ReturnPhone: '+47 23 00 00 00',
        }),
      ),
    );
    const before = await read(created.ShipmentId);
    const [first] = before.records;
    if (!first) throw new Error('no record');
    const res = await post('/v2/Shipment/Update', {
      ...v2({ ShipmentStatus: 'Draft', ShipmentId: created.ShipmentId, ReturnPhone: '+47 23 00 00 00' }),
      Addresses: first.Addresses, // as read: nulls, Country, every type
      Parcels: before.records.map((r) => ({ ParcelId: r.ParcelId })),
    });
    expect(res.statusCode, res.body).toBe(200);
    const after = await read(created.ShipmentId);
    expect(after.records).toEqual(before.records);
  });
});

describe('every rule of §5 holds on the v2 paths', () => {
  test('errors name the list element', async () => {
    const bad = await post(
      '/v2/Shipment/Update',
      v2({
        Addresses: [PICKUP, { ...RECIPIENT, Zip: '0000', CompanyName: undefined, FirstName: undefined }],
      }),
    );
    expect(bad.statusCode).toBe(400);
    const errors = errorsOf(bad);
    expect(Object.keys(errors).sort()).toEqual(['Addresses[1].CompanyName', 'Addresses[1].Zip']);
    expect(errors['Addresses[1].CompanyName']?.[0]).toMatch(
      /^The CompanyName field \(or FirstName and LastName\)/,
    );
    // The schema's own errors name the element too.
    const typed = await post(
      '/v2/Shipment/Update',
      v2({ Addresses: [PICKUP, { ...RECIPIENT, AddressTypeId: 9 }] }),
    );
    expect(Object.keys(errorsOf(typed))).toEqual(['Addresses[1].AddressTypeId']);
  });

  test('a v2 body gets schema errors and rule violations in one 400, named as sent', async () => {
    const bad = await post(
      '/v2/Shipment/Update',
      v2({
        Addresses: [PICKUP, { ...RECIPIENT, Zip: '0000' }],
        Parcels: [{ Weight: { kg: 2 } }],
      }),
    );
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(errorsOf(bad)).sort()).toEqual(['Addresses[1].Zip', 'Parcels[0].Weight']);
  });

  test('each type at most once; Published needs types 1 and 2', async () => {
    const twice = await post('/v2/Shipment/Book', v2({ Addresses: [PICKUP, RECIPIENT, { ...RECIPIENT }] }));
    expect(twice.statusCode).toBe(400);
    expect(Object.keys(errorsOf(twice))).toEqual(['Addresses[2].AddressTypeId']);
    const noRecipient = await post('/v2/Shipment/Book', v2({ Addresses: [PICKUP] }));
    expect(noRecipient.statusCode).toBe(400);
    expect(errorsOf(noRecipient).Addresses?.[0]).toMatch(/AddressTypeId 2 \(recipient\)/);
    // A draft needs none.
    expect((await post('/v2/Shipment/Book', v2({ ShipmentStatus: 'Draft', Addresses: [] }))).statusCode).toBe(
      201,
    );
  });

  test('a PickupPointId without an address of type 4 asks for that address, whatever the status', async () => {
    const res = await post(
      '/v2/Shipment/Book',
      v2({ ShipmentStatus: 'Draft', ProductCode: 'PP', PickupPointId: 15003 }),
    );
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res).Addresses).toEqual([
      'An address of AddressTypeId 4 (pickup point) with an address line, zip and place is required when PickupPointId is given.',
    ]);
  });

  test('flat v1 address fields in a v2 body are not v2 fields: ignored, never read unvalidated', async () => {
    // Once copied into the command unchecked: a 500 (`trim` of an object), a 5 000-character name stored,
    // a pickup address taken from fields the v2 body replaces with Addresses.
    const res = await post(
      '/v2/Shipment/Book',
      v2({
        Addresses: [RECIPIENT],
        ReturnCompanyName: { a: 1 },
        RecipientCountry: 5,
        PickupCompanyName: 'Flat AS',
        PickupAddress: 'Flatveien 1',
        PickupZip: '0150',
        PickupPlace: 'OSLO',
      }),
    );
    expect(res.statusCode, res.body).toBe(400);
    expect(errorsOf(res).Addresses?.[0]).toMatch(/AddressTypeId 1 \(pickup\)/);
    const draft = await post(
      '/v2/Shipment/Book',
      v2({ ShipmentStatus: 'Draft', ReturnCompanyName: 'R'.repeat(5000) }),
    );
    expect(draft.statusCode, draft.body).toBe(201);
    const { records } = await read(json<UpdateResult>(draft).ShipmentId);
    expect(records[0]?.Addresses.map((a) => a.AddressTypeId)).toEqual([1, 2]);
  });

  test('a published shipment is final (409); a stale If-Match is 412', async () => {
    const created = await post('/v2/Shipment/Book', v2({ ShipmentStatus: 'Draft' }));
    const { ShipmentId } = json<UpdateResult>(created);
    const etag = String(created.headers.etag);
    expect((await post('/v2/Shipment/Update', v2({ ShipmentId }), { 'if-match': etag })).statusCode).toBe(
      200,
    );
    expect((await post('/v2/Shipment/Update', v2({ ShipmentId, ShipmentStatus: 'Draft' }))).statusCode).toBe(
      409,
    );
    const other = json<UpdateResult>(await post('/v2/Shipment/Book', v2({ ShipmentStatus: 'Draft' })));
    const stale = await post('/v2/Shipment/Update', v2({ ShipmentId: other.ShipmentId }), {
      'if-match': etag,
    });
    expect(stale.statusCode).toBe(412);
  });

  test('at most 999 parcels', async () => {
    const res = await post(
      '/v2/Shipment/Book',
      v2({ Parcels: Array.from({ length: 1000 }, () => ({ Weight: 1 })) }),
    );
    expect(res.statusCode).toBe(400);
    expect(Object.keys(errorsOf(res))).toEqual(['Parcels']);
  });

  test('idempotency: a replay answers the first response; another body under the key is 422', async () => {
    const body = v2({ SenderReference: 'IDEM-V2' });
    const first = await post('/v2/Shipment/Book', body, { 'idempotency-key': 'v2-idem-1' });
    const second = await post('/v2/Shipment/Book', body, { 'idempotency-key': 'v2-idem-1' });
    expect(first.statusCode, first.body).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
    const changed = await post('/v2/Shipment/Book', v2({ SenderReference: 'IDEM-V2b' }), {
      'idempotency-key': 'v2-idem-1',
    });
    expect(changed.statusCode).toBe(422);
  });

  test('outbox events, a return shipment and customs, through the v2 body', async () => {
    const created = json<UpdateResult>(await post('/v2/Shipment/Book', v2({ ShipmentStatus: 'Draft' })));
    await post('/v2/Shipment/Update', v2({ ShipmentId: created.ShipmentId }));
    const events = await ctx.database.db
      .select()
      .from(outboxEvents)
      .where(eq(outboxEvents.shipmentId, created.ShipmentId));
    expect(events.map((e) => e.type)).toEqual(['shipment.created', 'shipment.updated', 'shipment.published']);

    const he = await post(
      '/v2/Shipment/Book',
      v2({ ProductCode: 'HE', DeliveryType: 0, ShouldGenerateReturnShipment: true }),
    );
    expect(he.statusCode, he.body).toBe(201);
    const returnId = json<UpdateResult>(he).ReturnShipmentId;
    expect(returnId && isGsin(returnId)).toBe(true);
    const back = await read(String(returnId));
    expect(back.records[0]?.IsReturn).toBe(true);
    expect(back.records[0]?.Addresses.find((a) => a.AddressTypeId === 1)?.Zip).toBe('5003');

    const abroad = await post(
      '/v2/Shipment/Book',
      v2({
        ProductCode: 'EP',
        Addresses: [PICKUP, { ...RECIPIENT, Country: 'SE', Zip: '111 22', Place: 'STOCKHOLM' }],
      }),
    );
    expect(abroad.statusCode).toBe(400);
    expect(Object.keys(errorsOf(abroad))).toEqual(['CustomsInformation']);
    const domestic = await post(
      '/v2/Shipment/Book',
      v2({ Addresses: [PICKUP, { ...RECIPIENT, Country: 'SE', Zip: '111 22', Place: 'STOCKHOLM' }] }),
    );
    expect(Object.keys(errorsOf(domestic))).toContain('Addresses[1].Country');
  });
});

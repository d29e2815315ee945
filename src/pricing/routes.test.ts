import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import { referenceDataLoads } from '../reference-data/tables';
import { createCalculator } from './calculator';
import type { TariffDocument } from './tariff';

/**
 * The four price operations and the tariff administration over HTTP, on the shipped demo tariff
 * (data/tariffs/2026-01-01.json) and exchange rates (data/exchange-rates/2026-01-02.json).
 * Expected amounts are computed by hand from those files; each test shows its arithmetic.
 */

let ctx: TestContext;
let key: string; // price scope, customer 2000 (10 % discount, special unit code 51)
let payerKey: string; // price scope, customers 2000 and 3000
let bookingKey: string; // no price scope
let otherKey: string; // price scope, customer 4000 only
let priceServiceId: string;

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => new Date('2026-11-23T09:00:00Z') });
  await ctx.services.customers.create({
    CustomerNr: '2000',
    Name: 'Avtale AS',
    Agreement: { FreightDiscountPercent: 10, SpecialUnitCodes: ['51'] },
  });
  await ctx.services.customers.create({
    CustomerNr: '3000',
    Name: 'Mottaker AS',
    Agreement: { FreightDiscountPercent: 25 },
  });
  key = await ctx.keyFor({ customerNrs: ['2000'], scopes: ['price'] });
  payerKey = await ctx.keyFor({ customerNrs: ['2000', '3000'], scopes: ['price'] });
  bookingKey = await ctx.keyFor({ customerNrs: ['2000'], scopes: ['booking'] });
  otherKey = await ctx.keyFor({ customerNrs: ['4000'], scopes: ['price'] });
  priceServiceId = (await ctx.services.customers.get('2000'))?.priceServiceId ?? '';
});
afterAll(() => ctx.close());

const get = (url: string, k = key) => ctx.app.inject({ url, headers: bearer(k) });
const deleteTariff = (validFrom: string) =>
  ctx.app.inject({ method: 'DELETE', url: `/admin/tariffs/${validFrom}`, headers: bearer(ADMIN_KEY) });
const qs = (params: Record<string, string | number | (string | number)[]>) =>
  Object.entries(params)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${encodeURIComponent(String(x))}`))
    .join('&');
const v3Url = (params: Record<string, string | number | (string | number)[]>) =>
  `/v3/Calculate/?${qs({ Customernr: '2000', SenderZip: '0150', ReceiverZip: '5003', ProductCode: '43', ...params })}`;
const v3 = (params: Record<string, string | number | (string | number)[]>, k = key) => get(v3Url(params), k);
/** A DDU export of 12 kg from Oslo to Berlin for customer 2000, with `params` changed. */
const europe = (params: Record<string, string | number | boolean | string[]> = {}, k = key) =>
  get(
    `/v2/europe/price?${qs({
      CustomerId: priceServiceId,
      ProductCode: 'EP',
      OriginCountry: 'NO',
      OriginPostalCode: '0150',
      DestinationCountry: 'DE',
      DestinationPostalCode: '10115',
      Weight: '12',
      Currency: 'NOK',
      ShipmentCategory: 'export',
      Terms: 'DDU',
      ...(params as Record<string, string>),
    })}`,
    k,
  );
const errorsOf = (res: { json(): unknown }) => (res.json() as { errors: Record<string, string[]> }).errors;

interface V3Result {
  Freight: { FreightCost: number; Details: { Description: string; Cost: number; CostTypeCode: string }[] };
  Services: { ServiceName: string; ServiceCode: string; ServiceCost: number }[];
  Total: number;
}
const costs = (r: V3Result) => Object.fromEntries(r.Freight.Details.map((d) => [d.CostTypeCode, d.Cost]));

describe('GET /v3/Calculate/', () => {
  test('Oslo → Bergen, 25 kg System with pre-notice e-mail, on a 10 % agreement', async () => {
    // 0150 is served by OSL, 5003 by BGO: zone 4. 25 kg → band ≤35 kg, zone 4 = 432.00.
    // DISCOUNT 10 % = −43.20; ENERGY 11.5 % of 388.80 = 44.712 → 44.71; TOLL zone 4 = 26.00.
    // FreightCost 432.00 − 43.20 + 44.71 + 26.00 = 459.51; service 16 = 3.00; Total 462.51.
    const res = await v3({ Weight: 25, Services: 16 });
    expect(res.statusCode).toBe(200);
    const body = json<V3Result>(res);
    expect(body).toEqual({
      Freight: {
        FreightCost: 459.51,
        Details: [
          { Description: 'Agreed freight', Cost: 432, CostTypeCode: 'FREIGHT' },
          { Description: 'Main freight discount 10 %', Cost: -43.2, CostTypeCode: 'DISCOUNT' },
          { Description: 'Energy addition 11.5 %', Cost: 44.71, CostTypeCode: 'ENERGY' },
          { Description: 'Toll road addition', Cost: 26, CostTypeCode: 'TOLL' },
        ],
      },
      Services: [{ ServiceName: 'Pre-notice e-mail', ServiceCode: '16', ServiceCost: 3 }],
      Total: 462.51,
    });
  });

  test('volume, private delivery and a remote-area delivery addition', async () => {
    // 0150 (OSL) → 8063 Værøy: 8063 is nearest BOO, OSL→BOO zone 6. 300 dm³ × 0.333 = 99.9 → 100 kg
    // beats 40 kg: band ≤100 kg zone 6 = 1034.00. DISCOUNT −103.40; ENERGY 11.5 % of 930.60 =
    // 107.019 → 107.02; TOLL zone 6 = 42.00; PRIVATE 79.00; DELIVERY_ADD Værøy and Røst 245.00.
    // FreightCost 1034.00 − 103.40 + 107.02 + 42.00 + 79.00 + 245.00 = 1403.62.
    const res = await v3({ Weight: 40, VolumeD3: 300, ReceiverZip: '8063', DeliveryType: 'Private' });
    expect(res.statusCode).toBe(200);
    const body = json<V3Result>(res);
    expect(costs(body)).toEqual({
      FREIGHT: 1034,
      DISCOUNT: -103.4,
      ENERGY: 107.02,
      TOLL: 42,
      PRIVATE: 79,
      DELIVERY_ADD: 245,
    });
    expect(body.Freight.FreightCost).toBe(1403.62);
    expect(body.Total).toBe(1403.62);
  });

  test('load meters and pallet spaces price on 1850 and 750 kg', async () => {
    // 1.5 load meters = 2775 kg → band ≤3000 kg zone 4 = 7161.00. 4 pallet spaces = 3000 kg → the same band.
    const lm = json<V3Result>(await v3({ NumberOfLoadMeters: 1.5 }));
    const ps = json<V3Result>(await v3({ NumberOfPalletSpaces: 4 }));
    expect(costs(lm).FREIGHT).toBe(7161);
    expect(costs(ps).FREIGHT).toBe(7161);
    // 5 pallet spaces = 3750 kg: 7161.00 + 8 started 100 kg × 233.00 (zone 4) = 9025.00.
    expect(costs(json<V3Result>(await v3({ NumberOfPalletSpaces: 5 }))).FREIGHT).toBe(9025);
  });

  test('a special unit code of the agreement prices on its unit weight', async () => {
    // Code 51 weighs 250 kg per unit: 2 units = 500 kg → band ≤500 kg zone 4 = 1976.00.
    const res = await v3({ Weight: 100, UnitCode: '51', NumberOfUnits: 2 });
    expect(res.statusCode).toBe(200);
    expect(costs(json<V3Result>(res)).FREIGHT).toBe(1976);
  });

  test('parcels are priced one by one, given as Parcels[i].Name in the query', async () => {
    // Parcel 10 kg → 293.00; parcel 60×40×40 cm = 96 dm³ × 0.333 = 31.97 → 32 kg → 432.00;
    // sum 725.00 beats the shipment's 20 kg (355.00).
    const res = await v3({
      Weight: 20,
      'Parcels[0].Weight': 10,
      'Parcels[1].Weight': 10,
      'Parcels[1].Length': 60,
      'Parcels[1].Width': 40,
      'Parcels[1].Height': 40,
    });
    expect(res.statusCode).toBe(200);
    expect(costs(json<V3Result>(res)).FREIGHT).toBe(725);
  });

  test('PaymentCode M prices on the payer’s agreement; the key must act for the payer', async () => {
    // Payer 3000 has 25 %: 432.00 − 108.00 = 324.00; ENERGY 37.26; TOLL 26.00 → 387.26.
    const res = await v3({ Weight: 25, PaymentCode: 'M', PayerCustomerNr: '3000' }, payerKey);
    expect(res.statusCode).toBe(200);
    expect(json<V3Result>(res).Freight.FreightCost).toBe(387.26);
    expect(
      (await v3({ Weight: 25, PaymentCode: 'Recipient', PayerCustomerNr: '3000' }, key)).statusCode,
    ).toBe(403);
    const missing = await v3({ Weight: 25, PaymentCode: 'F' }, payerKey);
    expect(missing.statusCode).toBe(400);
    expect(Object.keys(errorsOf(missing))).toEqual(['PayerCustomerNr']);
    // Another payer's agreement prices, but the sender must exist too (it was priced unknown).
    const ghost = await v3(
      { Customernr: '7777777', Weight: 25, PaymentCode: 'F', PayerCustomerNr: '3000' },
      ADMIN_KEY,
    );
    expect(ghost.statusCode).toBe(400);
    expect(Object.keys(errorsOf(ghost))).toEqual(['Customernr']);
  });

  test('names are case-insensitive and list parameters repeat', async () => {
    const a = await get(
      '/v3/Calculate/?customernr=2000&senderzip=0150&receiverzip=5003&productcode=43&weight=25&services=16&services=35',
    );
    expect(a.statusCode).toBe(200);
    expect(json<V3Result>(a).Services.map((s) => s.ServiceCode)).toEqual(['16', '35']);
  });

  test('a repeated `service` (the original page’s spelling) is read as Services; both together are one list', async () => {
    const codes = async (query: string) => {
      const res = await get(
        `/v3/Calculate?Customernr=2000&SenderZip=0150&ReceiverZip=5003&ProductCode=43&Weight=25&${query}`,
      );
      expect(res.statusCode, res.body).toBe(200);
      return json<V3Result>(res).Services.map((s) => s.ServiceCode);
    };
    expect(await codes('service=16&service=35')).toEqual(['16', '35']);
    expect(await codes('service=16')).toEqual(['16']);
    expect(await codes('Services=16&service=35')).toEqual(['16', '35']);
    expect(await codes('Services=16&service=16')).toEqual(['16']);
    const bad = await get(
      '/v3/Calculate?Customernr=2000&SenderZip=0150&ReceiverZip=5003&ProductCode=43&Weight=25&service=ZZ9',
    );
    expect(bad.statusCode).toBe(400);
  });

  test('lists as ASP.NET binds them: `Services[0]=16`, and `Parcels[i]` in any spelling', async () => {
    const base = 'Customernr=2000&SenderZip=0150&ReceiverZip=5003&ProductCode=43';
    const indexed = await get(`/v3/Calculate?${base}&Weight=25&Services[0]=16&service[0]=35`);
    expect(indexed.statusCode, indexed.body).toBe(200);
    expect(json<V3Result>(indexed).Services.map((s) => s.ServiceCode)).toEqual(['16', '35']);
    const mixed = await get(`/v3/Calculate?${base}&Parcels[0].Weight=30&parcels[1].weight=30`);
    const same = await get(`/v3/Calculate?${base}&Parcels[0].Weight=30&Parcels[1].Weight=30`);
    expect(json<V3Result>(mixed).Total).toBe(json<V3Result>(same).Total);
    expect(json<V3Result>(mixed).Total).not.toBe(json<V3Result>(await v3({ Weight: 30 })).Total);
  });

  test('an indexed list with a gap is a 400 naming the missing item, never priced without it', async () => {
    // ASP.NET stops at the first missing index: the original would price one parcel of the two
    // here, and none for `Parcels[1]` alone; Kolli priced both, then the one.
    const base = 'Customernr=2000&SenderZip=0150&ReceiverZip=5003&ProductCode=43&Weight=10';
    for (const [query, missing] of [
      ['Parcels[0].Weight=10&parcels[2].weight=30', 'Parcels[1]'],
      ['parcels[1].weight=30', 'Parcels[0]'],
      ['Services[1]=16', 'Services[0]'],
    ] as const) {
      const res = await get(`/v3/Calculate?${base}&${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(Object.keys(errorsOf(res)), query).toEqual([missing]);
    }
    // A parcel addressed in another form than `Parcels[i]` is refused too, not left out of the price.
    for (const query of ['Parcels[-1].Weight=1', 'Parcels.Weight=1', 'Parcels[0][0].Weight=1']) {
      const res = await get(`/v3/Calculate?${base}&${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(Object.keys(errorsOf(res)), query).toEqual(['Parcels']);
    }
    // Two lists with gaps: both named in one 400.
    const both = await get(`/v3/Calculate?${base}&Parcels[1].Weight=30&Services[2]=16`);
    expect(Object.keys(errorsOf(both)).sort()).toEqual(['Parcels[0]', 'Services[0]']);
    // A list the route does not declare is ignored, as any unknown parameter is; a single value
    // given indexed is that value, as before.
    expect((await get(`/v3/Calculate?${base}&Extra[3]=1`)).statusCode).toBe(200);
    expect(
      (await get(`/v3/Calculate?Customernr=2000&SenderZip=0150&ReceiverZip=5003&ProductCode=43&Weight[1]=10`))
        .statusCode,
    ).toBe(200);
    // Bytes that are not UTF-8 in an item are that problem, under the list's name, not a gap.
    const notUtf8 = await get(`/v3/Calculate?${base}&Parcels[0].Weight=10&Parcels[1].Weight=%FF`);
    expect(notUtf8.statusCode).toBe(400);
    expect(Object.keys(errorsOf(notUtf8))).toEqual(['Parcels']);
  });

  test('a value of only spaces is no number: a 400, not a price for 0', async () => {
    // Once read as 0: Private delivery (+79.00), no volume.
    for (const name of ['DeliveryType', 'VolumeD3', 'NumberOfPalletSpaces']) {
      const res = await v3({ Weight: 25, [name]: ' ' });
      expect(res.statusCode, name).toBe(400);
      expect(Object.keys(errorsOf(res))).toEqual([name]);
    }
  });

  test('a text, date or boolean parameter left empty is not given, as ASP.NET binds it to null', async () => {
    const total = async (res: Awaited<ReturnType<typeof get>>) => {
      expect(res.statusCode, res.body).toBe(200);
      return json<{ Total: unknown }>(res).Total;
    };
    const plain = await total(await v3({ Weight: 25 }));
    expect(
      await total(await v3({ Weight: 25, UnitCode: '', PickupDate: ' ', PaymentCode: '', Services: '' })),
    ).toBe(plain);
    // A blank item of a list names nothing; the others stay.
    const service = await total(await v3({ Weight: 25, Services: '16' }));
    expect(await total(await v3({ Weight: 25, Services: ['16', ''] }))).toBe(service);
    const v2 = 'customer_nr=2000&sender_zip=0150&receiver_zip=5003&product_type=43&weight=25';
    const v2Plain = await total(await get(`/v2/PriceCalculator?${v2}`));
    expect(await total(await get(`/v2/PriceCalculator?${v2}&unit_code=&pickup_date=&service=`))).toBe(
      v2Plain,
    );
    expect((await europe({ IsDangerousGoods: '' as unknown as boolean })).statusCode).toBe(200);
    // A required one left empty is missing.
    const missing = await v3({ Weight: 25, SenderZip: '' });
    expect(missing.statusCode).toBe(400);
    expect(errorsOf(missing).SenderZip).toEqual(['The SenderZip field is required.']);
  });

  test('an unknown zip and an unknown service are named in one 400', async () => {
    // Once the zip alone; the service only on the next try.
    const res = await v3({ Weight: 5, SenderZip: '0000', Services: ['99', '16'] });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(errorsOf(res)).sort()).toEqual(['SenderZip', 'Services[0]']);
    const product = await v3({ Weight: 5, ProductCode: 'ZZ', Services: ['99'] });
    expect(Object.keys(errorsOf(product)).sort()).toEqual(['ProductCode', 'Services[0]']);
  });

  test('a parameter the schema refuses does not hide the other rules (CONTRACT §4)', async () => {
    const res = await v3({ Weight: 'x', ProductCode: 'ZZ', ReceiverZip: '9999', Services: '99' });
    expect(Object.keys(errorsOf(res)).sort()).toEqual([
      'ProductCode',
      'ReceiverZip',
      'Services[0]',
      'Weight',
    ]);
    // A required one missing, too: the rest is still judged.
    const noSender = await get(
      `/v3/Calculate/?${qs({ Customernr: '2000', ReceiverZip: '9999', Weight: 2, ProductCode: 'ZZ' })}`,
    );
    expect(Object.keys(errorsOf(noSender)).sort()).toEqual(['ProductCode', 'ReceiverZip', 'SenderZip']);
    // A rule spanning a refused field is not judged: no "give a measure" beside a refused Weight, no
    // NumberOfUnits for a unit code, no payer rule beside a refused PaymentCode.
    expect(Object.keys(errorsOf(await v3({ Weight: 'x', UnitCode: 'PL' })))).toEqual(['Weight']);
    // A refused element of a list keeps the others' places, and hides nothing.
    const service = await v3({ Weight: 5, ReceiverZip: '9999', Services: ['16', 'TOOLONGCODE', '99'] });
    expect(Object.keys(errorsOf(service)).sort()).toEqual(['ReceiverZip', 'Services[1]', 'Services[2]']);
    expect(
      Object.keys(errorsOf(await v3({ Weight: 5, PaymentCode: 'x'.repeat(30), PayerCustomerNr: '2000' }))),
    ).toEqual(['PaymentCode']);
  });

  test('a measure too small to weigh a gram is named among the measures, not as the request', async () => {
    // Load meters are weighed up to the gram from a milligram: 0.1 mm is 185 g, 0.1 pm nothing.
    const res = await v3({ NumberOfLoadMeters: '0.0000000000001' });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(errorsOf(res)).sort()).toEqual([
      'NumberOfLoadMeters',
      'NumberOfPalletSpaces',
      'VolumeD3',
      'Weight',
    ]);
  });

  test('the same parameter twice in two spellings is refused as twice in one spelling is', async () => {
    for (const query of ['Weight=5&Weight=6', 'WEIGHT=5&weight=6']) {
      const res = await get(
        `/v3/Calculate?Customernr=2000&SenderZip=0150&ReceiverZip=5003&ProductCode=43&${query}`,
      );
      expect(res.statusCode, query).toBe(400);
      expect(errorsOf(res)).toEqual({
        Weight: ['The Weight field is given more than once; it takes one value.'],
      });
    }
    // A parameter of two forms (a number or a name) is told the same.
    const twice = await v3({ Weight: 5, DeliveryType: ['Private', 'Company'] });
    expect(errorsOf(twice)).toEqual({
      DeliveryType: ['The DeliveryType field is given more than once; it takes one value.'],
    });
  });

  test('the pickup date picks the tariff in force', async () => {
    const res = await v3({ Weight: 25, PickupDate: '2019-05-01' });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res).PickupDate?.[0]).toContain('No tariff is in force on 2019-05-01');
    expect((await v3({ Weight: 25, PickupDate: '2026-12-01T10:00:00' })).statusCode).toBe(200);
  });

  describe('bad input is a 400 naming the field', () => {
    const cases: [string, Record<string, string | number | string[]>, string[]][] = [
      ['no measure at all', {}, ['NumberOfLoadMeters', 'NumberOfPalletSpaces', 'VolumeD3', 'Weight']],
      ['VolumeD3 over 99999', { VolumeD3: 100_000 }, ['VolumeD3']],
      ['Weight over 99999', { Weight: 100_000 }, ['Weight']],
      ['negative weight', { Weight: -1 }, ['Weight']],
      ['non-numeric weight', { Weight: 'heavy' }, ['Weight']],
      ['unknown product', { Weight: 5, ProductCode: 'ZZ' }, ['ProductCode']],
      ['a product without a domestic price', { Weight: 5, ProductCode: 'EP' }, ['ProductCode']],
      ['unknown service', { Weight: 5, Services: ['16', '99'] }, ['Services[1]']],
      ['a service not offered with the product', { Weight: 5, Services: '42' }, ['Services[0]']],
      ['zip not in the register', { Weight: 5, ReceiverZip: '0000' }, ['ReceiverZip']],
      ['malformed zip', { Weight: 5, SenderZip: '15O' }, ['SenderZip']],
      [
        'unit code without weight and number of units (pricing by units)',
        { NumberOfPalletSpaces: 2, UnitCode: 'PL' },
        ['NumberOfUnits', 'Weight'],
      ],
      ['malformed pickup date', { Weight: 5, PickupDate: '2026-13-45' }, ['PickupDate']],
      ['unknown unit code', { Weight: 5, UnitCode: 'XX', NumberOfUnits: 1 }, ['UnitCode']],
      ['a parcel with a negative weight', { Weight: 5, 'Parcels[0].Weight': -2 }, ['Parcels[0].Weight']],
      [
        'a parcel over the product maximum',
        { Weight: 5, ProductCode: 'PP', 'Parcels[0].Weight': 36 },
        ['Parcels[0].Weight'],
      ],
      ['an unknown payment code', { Weight: 5, PaymentCode: 'X' }, ['PaymentCode']],
      ['a malformed delivery type', { Weight: 5, DeliveryType: 'Home' }, ['DeliveryType']],
    ];
    for (const [name, params, fields] of cases) {
      test(name, async () => {
        const res = await v3(params);
        expect(res.statusCode).toBe(400);
        expect(res.headers['content-type']).toContain('application/problem+json');
        expect(Object.keys(errorsOf(res)).sort()).toEqual(fields);
      });
    }

    test('unknown parameters are ignored, as ASP.NET binding ignores them', async () => {
      expect((await v3({ Weight: 5, Colour: 'red' })).statusCode).toBe(200);
    });

    test('a special unit code outside the customer’s agreement', async () => {
      await ctx.services.customers.create({ CustomerNr: '5000', Name: 'Uten avtale AS' });
      const k = await ctx.keyFor({ customerNrs: ['5000'], scopes: ['price'] });
      const res = await v3({ Customernr: '5000', Weight: 5, UnitCode: '51', NumberOfUnits: 1 }, k);
      expect(res.statusCode).toBe(400);
      expect(errorsOf(res)).toEqual({
        UnitCode: ["Special unit code 51 is not in the customer's agreement."],
      });
    });

    test('every violated rule is reported together', async () => {
      const res = await v3({ Weight: 5, ProductCode: 'ZZ', ReceiverZip: '0000', PickupDate: 'soon' });
      expect(Object.keys(errorsOf(res)).sort()).toEqual(['PickupDate', 'ProductCode', 'ReceiverZip']);
    });
  });

  test('a price whose context the caches hold is computed at once, not through a promise', async () => {
    const account = await ctx.services.auth.authenticate(key);
    if (!account) throw new Error('the test key does not authenticate');
    const calculator = createCalculator(ctx.services.pricing);
    const query = {
      Customernr: '2000',
      SenderZip: '0150',
      ReceiverZip: '5003',
      Weight: 25,
      ProductCode: '43',
    };
    const first = await calculator.v3(account, query);
    const again = calculator.v3(account, query);
    expect(again).not.toBeInstanceOf(Promise);
    expect(again).toEqual(first);
  });

  test('an unknown customer is a 400; once created through this process it prices at once', async () => {
    const before = await v3({ Customernr: '6000', Weight: 5 }, ADMIN_KEY);
    expect(before.statusCode).toBe(400);
    expect(Object.keys(errorsOf(before))).toEqual(['Customernr']);
    // Through another process, the unknown number is asked again within a second (MISS_TTL_MS).
    await ctx.services.customers.create({ CustomerNr: '6000', Name: 'Ny kunde AS' });
    expect((await v3({ Customernr: '6000', Weight: 5 }, ADMIN_KEY)).statusCode).toBe(200);
  });

  test('access: 401 without a key, 403 without the price scope or for another customer', async () => {
    const url = v3Url({ Weight: 5 });
    const none = await ctx.app.inject({ url });
    expect(none.statusCode).toBe(401);
    expect(none.headers['content-type']).toContain('text/plain');
    expect((await get(url, bookingKey)).statusCode).toBe(403);
    expect((await get(url, otherKey)).statusCode).toBe(403);
    expect((await get(url, ADMIN_KEY)).statusCode).toBe(200);
  });
});

describe('v2 PriceCalculator', () => {
  const body = {
    customer_nr: '2000',
    sender_zip: '0150',
    receiver_zip: '5003',
    weight: 25,
    product_type: '43',
    service: ['16', '35'],
  };

  test('POST answers the v2 shape; GET with the same names as query parameters answers the same', async () => {
    const post = await ctx.app.inject({
      method: 'POST',
      url: '/v2/PriceCalculator',
      headers: bearer(key),
      payload: body,
    });
    expect(post.statusCode).toBe(200);
    expect(post.json()).toEqual({
      Freight: {
        FreightCost: 459.51,
        Details: [
          { Description: 'Agreed freight', Cost: 432, CostTypeCode: 'FREIGHT' },
          { Description: 'Main freight discount 10 %', Cost: -43.2, CostTypeCode: 'DISCOUNT' },
          { Description: 'Energy addition 11.5 %', Cost: 44.71, CostTypeCode: 'ENERGY' },
          { Description: 'Toll road addition', Cost: 26, CostTypeCode: 'TOLL' },
        ],
      },
      Services: [
        { ServiceDescription: 'Pre-notice e-mail', ServiceCost: 3, CostTypeCode: '16' },
        { ServiceDescription: 'Fix Day', ServiceCost: 195, CostTypeCode: '35' },
      ],
      Total: 657.51,
    });
    const getRes = await get(`/v2/PriceCalculator?${qs(body)}`);
    expect(getRes.statusCode).toBe(200);
    expect(getRes.json()).toEqual(post.json());
  });

  test('GET and POST agree, and v3 gives the same amounts, for any valid request', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          weight: fc.integer({ min: 1, max: 3000 }),
          volume_d3: fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined }),
          receiver_zip: fc.constantFrom('5003', '7010', '9170', '0150', '8063'),
          product_type: fc.constantFrom('43', '44', 'DI'),
          service: fc.subarray(['11', '16', '17']),
          parcels: fc.option(
            fc.array(
              fc.record({
                weight: fc.integer({ min: 1, max: 50 }),
                length: fc.integer({ min: 1, max: 100 }),
              }),
              {
                minLength: 1,
                maxLength: 3,
              },
            ),
            { nil: undefined },
          ),
        }),
        async (r) => {
          const request = { customer_nr: '2000', sender_zip: '0150', ...r };
          const post = await ctx.app.inject({
            method: 'POST',
            url: '/v2/PriceCalculator',
            headers: bearer(key),
            payload: request,
          });
          const { parcels, ...flat } = request;
          const parcelParams = Object.fromEntries(
            (parcels ?? []).flatMap((p, i) => [
              [`parcels[${i}].weight`, p.weight],
              [`parcels[${i}].length`, p.length],
            ]),
          );
          const query = {
            ...Object.fromEntries(Object.entries(flat).filter(([, v]) => v !== undefined)),
            ...parcelParams,
          };
          const viaGet = await get(`/v2/PriceCalculator?${qs(query as Record<string, string>)}`);
          expect(post.statusCode).toBe(200);
          expect(viaGet.json()).toEqual(post.json());
          const v3Res = await v3({
            ReceiverZip: r.receiver_zip,
            ProductCode: r.product_type,
            Weight: r.weight,
            ...(r.volume_d3 !== undefined ? { VolumeD3: r.volume_d3 } : {}),
            Services: r.service,
            ...Object.fromEntries(
              (parcels ?? []).flatMap((p, i) => [
                [`Parcels[${i}].Weight`, p.weight],
                [`Parcels[${i}].Length`, p.length],
              ]),
            ),
          });
          const a = post.json() as { Freight: unknown; Total: number };
          const b = v3Res.json() as { Freight: unknown; Total: number };
          expect(b.Freight).toEqual(a.Freight);
          expect(b.Total).toBe(a.Total);
        },
      ),
      { numRuns: 12 },
    );
  });

  test('bad input names the v2 field', async () => {
    const post = (payload: object) =>
      ctx.app.inject({ method: 'POST', url: '/v2/PriceCalculator', headers: bearer(key), payload });
    const none = await post({ ...body, weight: undefined });
    expect(Object.keys(errorsOf(none)).sort()).toEqual([
      'number_of_load_meters',
      'number_of_pallet_spaces',
      'volume_d3',
      'weight',
    ]);
    // A numeric string ('25') binds as the number (CONTRACT §2); other text is refused.
    expect(Object.keys(errorsOf(await post({ ...body, weight: '25 kg' })))).toEqual(['weight']);
    expect(Object.keys(errorsOf(await post({ ...body, service: ['77'] })))).toEqual(['service[0]']);
    expect(Object.keys(errorsOf(await post({ ...body, product_type: undefined })))).toEqual(['product_type']);
    expect(
      Object.keys(
        errorsOf(await post({ ...body, weight: undefined, number_of_pallet_spaces: 2, unit_code: 'PL' })),
      ).sort(),
    ).toEqual(['number_of_units', 'weight']);
    // With a weight or a volume the unit code is just the unit: the number of units defaults to 1.
    expect((await post({ ...body, unit_code: 'KL' })).statusCode).toBe(200);
    expect((await post({ ...body, weight: undefined, volume_d3: 100, unit_code: 'KL' })).statusCode).toBe(
      200,
    );
    expect(Object.keys(errorsOf(await post({ ...body, parcels: [{ weight: -1 }] })))).toEqual([
      'parcels[0].weight',
    ]);
    expect(Object.keys(errorsOf(await post({ ...body, pickup_date: '23.11.2026' })))).toEqual([
      'pickup_date',
    ]);
    // A field the schema refuses does not hide the rules of the others (CONTRACT §4).
    expect(
      Object.keys(
        errorsOf(await post({ ...body, weight: 'x', product_type: 'ZZ', receiver_zip: '9999' })),
      ).sort(),
    ).toEqual(['product_type', 'receiver_zip', 'weight']);
    const viaGet = await get(`/v2/PriceCalculator?${qs({ ...body, weight: 'abc', sender_zip: '12' })}`);
    expect(viaGet.statusCode).toBe(400);
    expect(Object.keys(errorsOf(viaGet)).sort()).toEqual(['sender_zip', 'weight']);
    const malformed = await ctx.app.inject({
      method: 'POST',
      url: '/v2/PriceCalculator',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: '{"customer_nr": ',
    });
    expect(malformed.statusCode).toBe(400);
    expect(Object.keys(errorsOf(malformed))).toEqual(['request']);
  });
});

describe('GET /v2/europe/price', () => {
  test('DDP to Germany in NOK, with the volume weight and the customer’s discount', async () => {
    // 0.05 m³ × 333 = 16.65 → 17 kg beats 12 kg; DE is zone 2; EP ≤20 kg zone 2 = EUR 62.00.
    // Freight × 11.80 NOK/EUR = 731.60; fees export 39.00, import 49.00, duty 25.00 → 460.20, 578.20,
    // 295.00. Then, as at home, of the NOK freight: DISCOUNT 10 % = 73.16; ENERGY 14 % of 658.44 =
    // 92.1816 → 92.18 (converted from EUR, 7.81 × 11.80 = 92.16 was not 14 % of anything shown).
    // OtherCosts = −73.16 + 92.18 + 460.20 + 578.20 + 295.00 = 1352.42; Total 2084.02.
    const res = await europe({ Volume: '0.05', Terms: 'DDP' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      Currency: 'NOK',
      Total: '2084.02',
      Details: {
        FreightPrice: '731.60',
        OtherCosts: '1352.42',
        OtherCostsDetails: [
          { Code: 'DISCOUNT', Description: 'Main freight discount 10 %', Amount: '-73.16' },
          { Code: 'ENERGY', Description: 'Energy addition 14 %', Amount: '92.18' },
          { Code: 'EXPORT_CLEARANCE', Description: 'Export customs clearance', Amount: '460.20' },
          { Code: 'IMPORT_CLEARANCE', Description: 'Import customs clearance', Amount: '578.20' },
          { Code: 'DUTY_HANDLING', Description: 'Duty and VAT handling', Amount: '295.00' },
        ],
      },
      Error: null,
    });
  });

  test('terms change the lines: EXW adds origin pickup, CPT prices to the terminal, DDU only export clearance', async () => {
    const codes = async (terms: string) =>
      (
        json<{ Details: { OtherCostsDetails: { Code: string }[] } }>(await europe({ Terms: terms })).Details
          .OtherCostsDetails ?? []
      ).map((l) => l.Code);
    expect(await codes('EXW')).toEqual(['DISCOUNT', 'ENERGY', 'ORIGIN_PICKUP']);
    expect(await codes('CPT')).toEqual(['DISCOUNT', 'ENERGY']);
    expect(await codes('DDU')).toEqual(['DISCOUNT', 'ENERGY', 'EXPORT_CLEARANCE']);
    // CPT: 12 kg ≤20 kg zone 2 = EUR 62.00 less 20 % destination delivery = 49.60 → 585.28 NOK.
    expect(
      json<{ Details: { FreightPrice: string } }>(await europe({ Terms: 'cpt' })).Details.FreightPrice,
    ).toBe('585.28');
  });

  test('dangerous goods add their fee, in EUR when asked', async () => {
    // EUR: freight 62.00; DISCOUNT −6.20; ENERGY 7.81; EXPORT_CLEARANCE 39.00; DANGEROUS_GOODS 75.00.
    const res = await europe({ Currency: 'EUR', IsDangerousGoods: true });
    const body = json<{ Total: string; Details: { OtherCostsDetails: { Code: string; Amount: string }[] } }>(
      res,
    );
    expect(body.Details.OtherCostsDetails.at(-1)).toEqual({
      Code: 'DANGEROUS_GOODS',
      Description: 'Dangerous goods',
      Amount: '75.00',
    });
    expect(body.Total).toBe('177.61');
  });

  test('IsDangerousGoods as .NET writes a bool (`True`) is read as true', async () => {
    const res = await europe({ Currency: 'EUR', IsDangerousGoods: 'True' as unknown as boolean });
    expect(res.statusCode, res.body).toBe(200);
    expect(json<{ Total: string }>(res).Total).toBe('177.61');
  });

  test('a volume over the limit is named in the parameter’s own unit, m³', async () => {
    const res = await europe({ Volume: '999999' });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res).Volume).toEqual(['The volume must be at most 10000.']);
  });

  test('no price is a 200 with Error and the price fields null', async () => {
    const res = await europe({ DestinationCountry: 'US', DestinationPostalCode: '10001' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      Currency: 'NOK',
      Total: null,
      Details: { FreightPrice: null, OtherCosts: null, OtherCostsDetails: null },
      Error: { Code: 'NO_ROUTE', Description: 'No price exists from NO to US with product EP.' },
    });
    const heavy = json<{ Error: { Code: string } }>(await europe({ Weight: '1500' }));
    expect(heavy.Error.Code).toBe('WEIGHT_ABOVE_MAXIMUM');
    const noRate = json<{ Error: { Code: string } }>(await europe({ Currency: 'AUD' }));
    expect(noRate.Error.Code).toBe('NO_EXCHANGE_RATE');
  });

  describe('bad input is a 400 naming the field', () => {
    const cases: [string, Record<string, string>, string[]][] = [
      ['currency not ISO 4217', { Currency: 'XYZ' }, ['Currency']],
      ['country not ISO 3166 alpha-2', { DestinationCountry: 'XX' }, ['DestinationCountry']],
      ['a country of three letters', { OriginCountry: 'NOR' }, ['OriginCountry']],
      ['ShipmentCategory contradicting the countries', { ShipmentCategory: 'import' }, ['ShipmentCategory']],
      ['unknown ShipmentCategory', { ShipmentCategory: 'transit' }, ['ShipmentCategory']],
      ['unknown Terms', { Terms: 'FOB' }, ['Terms']],
      ['non-numeric weight', { Weight: 'ten' }, ['Weight']],
      ['zero weight', { Weight: '0' }, ['Weight']],
      ['negative volume', { Volume: '-1' }, ['Volume']],
      ['a domestic product', { ProductCode: '43' }, ['ProductCode']],
      ['unknown product', { ProductCode: 'ZZ' }, ['ProductCode']],
      ['a Norwegian postal code not in the register', { OriginPostalCode: '0000' }, ['OriginPostalCode']],
      ['a service not offered with the product', { Services: '42' }, ['Services[0]']],
      ['unknown price-service id', { CustomerId: 'PS0000000000000000' }, ['CustomerId']],
      ['missing required parameter', { Terms: '' }, ['Terms']],
      // A parameter the schema refuses does not hide the rules of the others (CONTRACT §4).
      [
        'a refused currency beside three broken rules',
        { Currency: 'EURO', Weight: 'abc', ShipmentCategory: 'foo', Terms: 'FOB' },
        ['Currency', 'ShipmentCategory', 'Terms', 'Weight'],
      ],
      [
        'a missing country beside a broken weight',
        { DestinationCountry: '', Weight: 'abc' },
        ['DestinationCountry', 'Weight'],
      ],
    ];
    for (const [name, params, fields] of cases) {
      test(name, async () => {
        const res = await europe(params);
        expect(res.statusCode).toBe(400);
        expect(Object.keys(errorsOf(res)).sort()).toEqual(fields);
      });
    }
  });

  test('the price-service id must belong to one of the key’s customers', async () => {
    expect((await europe({}, otherKey)).statusCode).toBe(403);
    expect((await europe({}, bookingKey)).statusCode).toBe(403);
    expect((await europe({}, ADMIN_KEY)).statusCode).toBe(200);
  });
});

describe('tariff administration', () => {
  const shipped = JSON.parse(
    readFileSync(new URL('../../data/tariffs/2026-01-01.json', import.meta.url), 'utf8'),
  ) as TariffDocument;
  const put = (payload: unknown, k = ADMIN_KEY) =>
    ctx.app.inject({ method: 'PUT', url: '/admin/tariffs', headers: bearer(k), payload: payload as object });
  const putRates = (payload: object) =>
    ctx.app.inject({ method: 'PUT', url: '/admin/exchange-rates', headers: bearer(ADMIN_KEY), payload });

  test('a new version is used from its ValidFrom on; earlier pickups keep the old prices', async () => {
    const next = structuredClone(shipped);
    next.ValidFrom = '2027-01-01';
    next.EnergyPercent = '12.50';
    const res = await put(next);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ValidFrom: '2027-01-01', Source: 'admin' });
    // 432.00 − 43.20 = 388.80; ENERGY 12.5 % = 48.60.
    const after = json<V3Result>(await v3({ Weight: 25, PickupDate: '2027-01-04' }));
    expect(costs(after).ENERGY).toBe(48.6);
    const before = json<V3Result>(await v3({ Weight: 25, PickupDate: '2026-12-31' }));
    expect(costs(before).ENERGY).toBe(44.71);
    const list = json<{ ValidFrom: string }[]>(await get('/admin/tariffs', ADMIN_KEY));
    expect(list.map((v) => v.ValidFrom)).toEqual(['2026-01-01', '2027-01-01']);
    const read = await get('/admin/tariffs/2027-01-01', ADMIN_KEY);
    expect(read.json()).toMatchObject({ ValidFrom: '2027-01-01', EnergyPercent: '12.50' });
    const del = await deleteTariff('2027-01-01');
    expect(del.statusCode).toBe(204);
    expect(costs(json<V3Result>(await v3({ Weight: 25, PickupDate: '2027-01-04' }))).ENERGY).toBe(44.71);
  });

  test('a broken tariff is rejected whole, naming what is wrong', async () => {
    const broken = structuredClone(shipped);
    broken.ValidFrom = '2028-01-01';
    delete (broken.Zones.OSL as Record<string, number>).BGO;
    const table = broken.Products['43'];
    if (!table) throw new Error('43 missing');
    table.Bands[3] = { UpToKg: 15, Prices: table.Bands[3]?.Prices ?? [] };
    const res = await put(broken);
    expect(res.statusCode).toBe(400);
    expect(Object.keys(errorsOf(res)).sort()).toEqual(['Products[43].Bands[3].UpToKg', 'Zones.OSL.BGO']);
    const shape = structuredClone(shipped) as unknown as Record<string, unknown>;
    shape.EnergyPercent = 'lots';
    shape.Colour = 'red';
    const bad = await put(shape);
    expect(bad.statusCode).toBe(400);
    // The unknown member is named, as each broken one is.
    expect(Object.keys(errorsOf(bad)).sort()).toEqual(['Colour', 'EnergyPercent']);
    const list = json<{ ValidFrom: string }[]>(await get('/admin/tariffs', ADMIN_KEY));
    expect(list.map((v) => v.ValidFrom)).toEqual(['2026-01-01']);
  });

  test('a tariff may price a service before the catalogue offers it (the catalogue then may)', async () => {
    const next = structuredClone(shipped);
    next.ValidFrom = '2028-01-01';
    next.Services.Z9 = '10.00';
    const res = await put(next);
    expect(res.statusCode, res.body).toBe(200);
    const deleted = await deleteTariff('2028-01-01');
    expect(deleted.statusCode).toBe(204);
  });

  test('a tariff that cannot price every routing terminal, catalogue product and service is rejected whole, naming every gap', async () => {
    // The audit's version: HE, service 35 and terminal BGO gone (a consistent 25-terminal matrix).
    const next = structuredClone(shipped);
    next.ValidFrom = '2027-01-01';
    delete next.Products.HE;
    delete next.Services['35'];
    delete next.Zones.BGO;
    for (const row of Object.values(next.Zones)) delete row.BGO;
    // …and BGO misspelt as a terminal the routing data does not have (allowed on its own: a terminal
    // about to open), a full row and column of its own: BGO is still missing.
    next.Zones.BGX = Object.fromEntries(Object.keys(next.Zones).map((t) => [t, 8]));
    for (const row of Object.values(next.Zones)) row.BGX = 8;
    next.Zones.BGX.BGX = 1;
    delete next.International?.Services['15'];
    next.EnergyPercent = '12.50';
    next.Products['43']?.Bands.reverse(); // a rule of the document itself, reported in the same answer
    const res = await put(next);
    expect(res.statusCode).toBe(400);
    const errors = errorsOf(res);
    const [ownRules, fit] = [
      Object.keys(errors).filter((k) => k.startsWith('Products[43].Bands')),
      Object.keys(errors).filter((k) => !k.startsWith('Products[43].Bands')),
    ];
    expect(ownRules.length).toBeGreaterThan(0);
    expect(fit.sort()).toEqual(
      ['International.Services[15]', 'Products.HE', 'Services[35]', 'Zones.BGO'].sort(),
    );
    expect(errors['Zones.BGO']).toEqual(['Terminal BGO of the routing data has no row in the zone matrix.']);
    expect(errors['Products.HE']).toEqual(['Product HE of the catalogue has no price table.']);
    expect(errors['Services[35]']).toEqual([
      'Service 35 has no price; the catalogue offers it with products 43, 44, HE, HJ.',
    ]);
    // Nothing stored: 2027 pickups to Bergen still price, on the shipped version.
    const list = json<{ ValidFrom: string }[]>(await get('/admin/tariffs', ADMIN_KEY));
    expect(list.map((v) => v.ValidFrom)).toEqual(['2026-01-01']);
    const bergen = await v3({ Weight: 25, PickupDate: '2027-01-04', Services: '35' });
    expect(bergen.statusCode, bergen.body).toBe(200);
    expect(costs(json<V3Result>(bergen)).ENERGY).toBe(44.71);
    expect((await v3({ Weight: 25, PickupDate: '2027-01-04', ProductCode: 'HE' })).statusCode).toBe(200);
  });

  test('international products need no domestic price table, and no tariff section of their own', async () => {
    const next = structuredClone(shipped);
    next.ValidFrom = '2028-01-01';
    delete next.International;
    expect(Object.keys(next.Products)).not.toContain('EP');
    const res = await put(next);
    expect(res.statusCode, res.body).toBe(200);
    const del = await deleteTariff('2028-01-01');
    expect(del.statusCode).toBe(204);
  });

  test('only admins load tariffs and rates', async () => {
    expect((await put(shipped, key)).statusCode).toBe(403);
    expect((await get('/admin/tariffs', key)).statusCode).toBe(403);
  });

  test('exchange rates: a new table is in force from its date; bad codes are named', async () => {
    const res = await putRates({
      ValidFrom: '2026-11-20',
      Base: 'EUR',
      Rates: { NOK: '12.0000', SEK: '11.0000' },
    });
    expect(res.statusCode).toBe(200);
    // DDU, 12 kg to DE: EUR 62.00 and 39.00 at 12.00 = 744.00 and 468.00; −10 % = −74.40; energy 14 %
    // of 669.60 = 93.744 → 93.74: 744.00 − 74.40 + 93.74 + 468.00 = 1231.34.
    const price = await europe();
    expect(json<{ Total: string }>(price).Total).toBe('1231.34');
    const bad = await putRates({ ValidFrom: '2026-11-21', Base: 'EUR', Rates: { ABC: '1.0', NOK: '0' } });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(errorsOf(bad)).sort()).toEqual(['Rates.ABC', 'Rates.NOK']);
    const list = json<{ ValidFrom: string }[]>(await get('/admin/exchange-rates', ADMIN_KEY));
    expect(list.map((v) => v.ValidFrom)).toEqual(['2026-01-02', '2026-11-20']);
    // Invoicing reads the NOK rate in force on a date.
    expect(await ctx.services.pricing.rateInForce('2026-11-21', 'NOK')).toBe('12.0000');
    expect(await ctx.services.pricing.rateInForce('2026-06-01', 'NOK')).toBe('11.8000');
    expect(await ctx.services.pricing.rateInForce('2025-12-31', 'NOK')).toBeNull();
  });

  test('a ValidFrom outside the calendar is a 400 naming it, for a tariff and a rate table', async () => {
    for (const date of ['0000-01-01', '1899-12-31', '2026-02-30', '3000-01-01']) {
      const tariff = structuredClone(shipped);
      tariff.ValidFrom = date;
      const rates = { ValidFrom: date, Base: 'EUR', Rates: { NOK: '11.7135' } };
      for (const res of [await put(tariff), await putRates(rates)]) {
        expect(res.statusCode, `${date}: ${res.body}`).toBe(400);
        expect(errorsOf(res)).toEqual({
          ValidFrom: ['ValidFrom is not a calendar date from 1900-01-01 to 2999-12-31.'],
        });
      }
    }
  });

  test('an exchange-rate table holds NOK, and the EUR of a EUR-based table is 1', async () => {
    const bad = await putRates({ ValidFrom: '2026-11-22', Base: 'EUR', Rates: { SEK: '10.9', EUR: '3' } });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(errorsOf(bad)).sort()).toEqual(['Rates.EUR', 'Rates.NOK']);
    const list = json<{ ValidFrom: string }[]>(await get('/admin/exchange-rates', ADMIN_KEY));
    expect(list.map((v) => v.ValidFrom)).not.toContain('2026-11-22');
  });

  test('a version is not deleted when no tariff would be in force today, nor by two deletes at once', async () => {
    const next = structuredClone(shipped);
    next.ValidFrom = '2027-01-01';
    expect((await put(next)).statusCode).toBe(200);
    // Today (2026-11-23) only 2026-01-01 is in force: without it nothing prices until 2027.
    const inForce = await deleteTariff('2026-01-01');
    expect(inForce.statusCode).toBe(409);
    expect(inForce.json().detail).toBe(
      'Without this version no tariff is in force today (2026-11-23); the next starts 2027-01-01.',
    );
    const both = await Promise.all([deleteTariff('2026-01-01'), deleteTariff('2027-01-01')]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([204, 409]);
    const list = json<{ ValidFrom: string }[]>(await get('/admin/tariffs', ADMIN_KEY));
    expect(list.map((v) => v.ValidFrom)).toEqual(['2026-01-01']);
    expect((await deleteTariff('2026-01-01')).statusCode).toBe(409);
  });

  test("a version an admin put is the operator's: a release that changes its shipped file does not overwrite it", async () => {
    // As if the database had loaded an older release's file: this release's file counts as changed.
    await ctx.database.db
      .update(referenceDataLoads)
      .set({ sha256: 'an older release' })
      .where(eq(referenceDataLoads.name, 'tariffs/2026-01-01.json'));
    const operators = { ...structuredClone(shipped), Description: "The operator's own" };
    expect((await put(operators)).statusCode).toBe(200);
    expect(await ctx.services.pricing.loadShipped()).toBe(false);
    expect((await get('/admin/tariffs/2026-01-01', ADMIN_KEY)).json()).toMatchObject({
      Description: "The operator's own",
    });
  });

  test('loading the shipped files again changes nothing', async () => {
    expect(await ctx.services.pricing.loadShipped()).toBe(false);
  });
});

test('the price operations and the tariff administration are in the OpenAPI document', async () => {
  const doc = json<{ paths: Record<string, Record<string, unknown>> }>(
    await ctx.app.inject({ url: '/openapi.json' }),
  );
  expect(Object.keys(doc.paths['/v2/PriceCalculator'] ?? {}).sort()).toEqual(['get', 'post']);
  for (const path of ['/v3/Calculate/', '/v2/europe/price', '/admin/tariffs', '/admin/exchange-rates']) {
    expect(doc.paths).toHaveProperty([path]);
  }
});

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer, buildTestApp, json, type TestContext } from '../../test/helpers';

// Monday 23 November 2026, 10:00 in Oslo.
const NOW = new Date('2026-11-23T09:00:00Z');

let ctx: TestContext;
let key: string;

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => NOW });
  key = await ctx.keyFor({ scopes: ['price'] });
});
afterAll(() => ctx.close());

const get = (url: string) => ctx.app.inject({ url, headers: bearer(key) });
const errorKeys = (res: { json(): unknown }) => Object.keys((res.json() as { errors: object }).errors).sort();

describe('GET /v1/schedule/deliverydates', () => {
  test('Oslo to Bergen on a Monday: next day on the trunk line, and the desired dates up to 3 days later', async () => {
    const res = await get(
      '/v1/schedule/deliverydates?fromZip=0154&toZip=5003&productCode=43&pickupDate=2026-11-23',
    );
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({
      PickupDate: '2026-11-23',
      EarliestDeliveryDate: '2026-11-24',
      DeliveryDates: ['2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27'],
      PickupWindow: { From: '08:00', To: '16:00' },
      DeliveryWindow: { From: '08:00', To: '16:00' },
    });
  });

  test('a longer route counts transit days in working days, over a weekend', async () => {
    // Oslo to Tromsø is 4 days: Thursday + 4 working days = Wednesday.
    const res = await get(
      '/v1/schedule/deliverydates?fromZip=0154&toZip=9008&productCode=43&pickupDate=2026-11-26',
    );
    expect(json(res)).toMatchObject({
      PickupDate: '2026-11-26',
      EarliestDeliveryDate: '2026-12-02',
      DeliveryDates: ['2026-12-02', '2026-12-03', '2026-12-04'],
    });
  });

  test('over Christmas the holidays and 24 and 31 December are skipped', async () => {
    const res = await get(
      '/v1/schedule/deliverydates?fromZip=0154&toZip=0585&productCode=43&pickupDate=2026-12-23',
    );
    expect(json(res)).toMatchObject({
      PickupDate: '2026-12-23',
      EarliestDeliveryDate: '2026-12-28',
      DeliveryDates: ['2026-12-28', '2026-12-29', '2026-12-30'],
    });
  });

  test('a pickup date on a weekend or holiday moves to the next working day', async () => {
    const res = await get(
      '/v1/schedule/deliverydates?fromZip=0154&toZip=0585&productCode=43&pickupDate=2027-05-15',
    );
    expect(json(res)).toMatchObject({ PickupDate: '2027-05-18', EarliestDeliveryDate: '2027-05-19' });
  });

  test('a pickup date before the earliest pickup date plans from the earliest, as booking does', async () => {
    // Once planned from the past Friday: dates booking then refused as DeliveryDate.
    const res = await get(
      '/v1/schedule/deliverydates?fromZip=0154&toZip=5003&productCode=43&pickupDate=2026-11-20',
    );
    expect(json(res)).toMatchObject({ PickupDate: '2026-11-23', EarliestDeliveryDate: '2026-11-24' });
  });

  test('the windows come from the product', async () => {
    const res = await get(
      '/v1/schedule/deliverydates?fromZip=0154&toZip=5003&productCode=he&pickupDate=2026-11-23',
    );
    expect(json(res)).toMatchObject({ DeliveryWindow: { From: '17:00', To: '21:00' } });
  });

  test('without pickupDate the plan starts at the earliest pickup date (today before 16:00)', async () => {
    const res = await get('/v1/schedule/deliverydates?fromZip=0154&toZip=5003&productCode=43');
    expect(json(res)).toMatchObject({ PickupDate: '2026-11-23' });
  });

  test('a datetime counts by its date, and parameter names are case-insensitive', async () => {
    const res = await get(
      '/v1/schedule/deliverydates?FROMZIP=0154&ToZip=5003&productcode=43&PickupDate=2026-11-23T15:00:00',
    );
    expect(res.statusCode).toBe(200);
    expect(json(res)).toMatchObject({ PickupDate: '2026-11-23' });
  });

  test('unknown postal codes and products are 400s naming each parameter', async () => {
    const res = await get(
      '/v1/schedule/deliverydates?fromZip=0000&toZip=0001&productCode=ZZ&pickupDate=2026-11-23',
    );
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(errorKeys(res)).toEqual(['fromZip', 'productCode']);
  });

  test('malformed values and missing parameters are 400s naming each parameter', async () => {
    // The date is no real day: named beside the postal codes the schema refused (CONTRACT §4).
    const res = await get('/v1/schedule/deliverydates?fromZip=15O&productCode=43&pickupDate=2026-02-30');
    expect(res.statusCode).toBe(400);
    expect(errorKeys(res)).toEqual(['fromZip', 'pickupDate', 'toZip']);
    const date = await get(
      '/v1/schedule/deliverydates?fromZip=0154&toZip=5003&productCode=43&pickupDate=2026-02-30',
    );
    expect(date.statusCode).toBe(400);
    expect(errorKeys(date)).toEqual(['pickupDate']);
    const text = await get(
      '/v1/schedule/deliverydates?fromZip=0154&toZip=5003&productCode=43&pickupDate=tomorrow',
    );
    expect(errorKeys(text)).toEqual(['pickupDate']);
    const code = await get('/v1/schedule/deliverydates?fromZip=0154&toZip=5003&productCode=TOOLONG');
    expect(errorKeys(code)).toEqual(['productCode']);
  });

  test('needs a key', async () => {
    const res = await ctx.app.inject({
      url: '/v1/schedule/deliverydates?fromZip=0154&toZip=5003&productCode=43',
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /v1/schedule/workingdays', () => {
  test('lists the working days of the interval, inclusive', async () => {
    const res = await get('/v1/schedule/workingdays?from=2026-12-21&to=2027-01-04');
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({
      WorkingDays: [
        '2026-12-21',
        '2026-12-22',
        '2026-12-23',
        '2026-12-28',
        '2026-12-29',
        '2026-12-30',
        '2027-01-04',
      ],
    });
  });

  test('a single day, and a span of exactly 366 days, are fine', async () => {
    expect(json(await get('/v1/schedule/workingdays?from=2026-05-17&to=2026-05-17'))).toEqual({
      WorkingDays: [],
    });
    const year = await get('/v1/schedule/workingdays?from=2027-01-01&to=2028-01-02');
    expect(year.statusCode).toBe(200);
    expect(json<{ WorkingDays: string[] }>(year).WorkingDays).toHaveLength(253);
  });

  test('from after to, an interval over 366 days and malformed dates are 400s', async () => {
    const reversed = await get('/v1/schedule/workingdays?from=2026-12-31&to=2026-12-01');
    expect(reversed.statusCode).toBe(400);
    expect(errorKeys(reversed)).toEqual(['to']);
    const long = await get('/v1/schedule/workingdays?from=2026-01-01&to=2027-01-03');
    expect(long.statusCode).toBe(400);
    expect(errorKeys(long)).toEqual(['to']);
    const bad = await get('/v1/schedule/workingdays?from=2026-13-01&to=2026-1-2');
    expect(bad.statusCode).toBe(400);
    expect(errorKeys(bad)).toEqual(['from', 'to']);
    const missing = await get('/v1/schedule/workingdays?from=2026-01-01');
    expect(errorKeys(missing)).toEqual(['to']);
  });
});

describe('schedule service (what booking uses)', () => {
  test('deliveryPlan gives the same plan as the HTTP answer', async () => {
    const plan = await ctx.services.schedule.deliveryPlan({
      fromZip: '0154',
      toZip: '5003',
      productCode: '43',
      pickupDate: '2026-11-23',
    });
    expect(plan).toMatchObject({
      EarliestDeliveryDate: '2026-11-24',
      DeliveryDates: ['2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27'],
    });
  });

  test('deliveryPlan is null for an unknown postal code, product or date', async () => {
    const plan = (over: object) =>
      ctx.services.schedule.deliveryPlan({
        fromZip: '0154',
        toZip: '5003',
        productCode: '43',
        pickupDate: '2026-11-23',
        ...over,
      });
    expect(await plan({ toZip: '0000' })).toBeNull();
    expect(await plan({ fromZip: '9999' })).toBeNull();
    expect(await plan({ productCode: 'ZZ' })).toBeNull();
    expect(await plan({ pickupDate: '2026-02-30' })).toBeNull();
  });

  test('route gives the terminals and transit days of two postal codes', async () => {
    expect(await ctx.services.schedule.route('0154', '9008')).toEqual({
      fromTerminal: 'OSL',
      toTerminal: 'TOS',
      transitDays: 4,
    });
  });
});

test('dates outside the calendar (years before 1900 or after 2999) are a 400, answered at once', async () => {
  const far = await get(
    '/v1/schedule/deliverydates?fromZip=0154&toZip=5003&productCode=43&pickupDate=9999-12-31',
  );
  expect(far.statusCode).toBe(400);
  expect(Object.keys(far.json().errors)).toEqual(['pickupDate']);
  const days = await get('/v1/schedule/workingdays?from=9999-12-31&to=9999-12-31');
  expect(days.statusCode).toBe(400);
  expect(Object.keys(days.json().errors).sort()).toEqual(['from', 'to']);
  expect((await get('/v1/schedule/workingdays?from=1899-12-31&to=1900-01-02')).statusCode).toBe(400);
});

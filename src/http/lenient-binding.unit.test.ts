import fc from 'fast-check';
import { Type } from 'typebox';
import { describe, expect, test } from 'vitest';
import { ShipmentUpdateRequest } from '../booking/schemas';
import {
  compileBinder,
  compileQueryBinder,
  EMPTY_ABSENT,
  OSLO_DATETIME,
  toOsloLocal,
  ZERO_ABSENT,
} from './binding';
import { bodyAjv } from './validation';

// ASP.NET Core's lenient binding, done once in the binder from the route's schema (CONTRACT §2).
const schema = Type.Object({
  CustomerId: Type.String(),
  Weight: Type.Optional(Type.Number()),
  Count: Type.Optional(Type.Integer()),
  Status: Type.Union([Type.Integer(), Type.String()]),
  Services: Type.Optional(Type.Array(Type.String())),
  When: Type.Optional(Type.String({ [OSLO_DATETIME]: true })),
  Expires: Type.Optional(Type.String()),
  Length: Type.Optional(Type.Integer({ minimum: 1, [ZERO_ABSENT]: true })),
  PickupPointId: Type.Optional(Type.Integer({ minimum: 1, [ZERO_ABSENT]: true })),
  Parcels: Type.Optional(
    Type.Array(
      Type.Object({
        Height: Type.Optional(Type.Integer({ [ZERO_ABSENT]: true })),
        Label: Type.Optional(Type.String({ minLength: 1, [EMPTY_ABSENT]: true })),
      }),
    ),
  ),
  Email: Type.Optional(Type.String({ format: 'email', [EMPTY_ABSENT]: true })),
  Comment: Type.Optional(Type.String()),
});
const bind = compileBinder(schema);

describe('lenient binding of JSON bodies', () => {
  test('a numeric string where a number belongs is that number; other strings stay for validation', () => {
    expect(bind({ CustomerId: '1', Status: 0, Weight: '12', Count: '3' })).toEqual({
      CustomerId: '1',
      Status: 0,
      Weight: 12,
      Count: 3,
    });
    expect(bind({ CustomerId: '1', Status: 0, Weight: '12.5e1', Count: '-4' })).toMatchObject({
      Weight: 125,
      Count: -4,
    });
    expect(bind({ CustomerId: '1', Status: 0, Weight: ' 12', Count: 'heavy' })).toMatchObject({
      Weight: ' 12',
      Count: 'heavy',
    });
  });

  test('a number where a string belongs is its decimal digits, in lists too', () => {
    expect(bind({ CustomerId: 1000, Status: 'Draft', Services: [16, '35'] })).toEqual({
      CustomerId: '1000',
      Status: 'Draft',
      Services: ['16', '35'],
    });
  });

  test('a value typed as number or string (a union of both) is left as sent', () => {
    expect(bind({ CustomerId: '1', Status: '2' })).toEqual({ CustomerId: '1', Status: '2' });
    expect(bind({ CustomerId: '1', Status: 2 })).toEqual({ CustomerId: '1', Status: 2 });
  });

  test('0 for an optional id or parcel measure is "not given", as number or string, at any depth', () => {
    expect(
      bind({
        CustomerId: '1',
        Status: 0,
        Length: 0,
        PickupPointId: '0',
        Parcels: [{ Height: 0 }, { Height: 5 }],
      }),
    ).toEqual({ CustomerId: '1', Status: 0, Parcels: [{}, { Height: 5 }] });
    // Other zeros are values (validation judges them).
    expect(bind({ CustomerId: '1', Status: 0, Weight: 0, Count: 0 })).toMatchObject({ Weight: 0, Count: 0 });
  });

  test('an empty or blank string where the schema says so is "not given", at any depth', () => {
    expect(
      bind({ CustomerId: '1', Status: 0, Email: '', Parcels: [{ Label: ' \t' }, { Label: 'A' }] }),
    ).toEqual({ CustomerId: '1', Status: 0, Parcels: [{}, { Label: 'A' }] });
    // Other empty strings are values (validation judges them); text is not trimmed.
    expect(bind({ CustomerId: '', Status: '', Comment: '', Email: ' a@b.no' })).toEqual({
      CustomerId: '',
      Status: '',
      Comment: '',
      Email: ' a@b.no',
    });
  });

  test('a date-time with Z or an offset is converted to Oslo local time; others are left as sent', () => {
    const at = (When: string) => (bind({ CustomerId: '1', Status: 0, When }) as { When: string }).When;
    expect(at('2026-11-25T23:00:00.000Z')).toBe('2026-11-26T00:00:00.000');
    expect(at('2026-11-26T00:00:00+01:00')).toBe('2026-11-26T00:00:00');
    expect(at('2026-11-26T00:00:00.1234567+01:00')).toBe('2026-11-26T00:00:00.1234567');
    expect(at('2026-07-01T10:15:00+0000')).toBe('2026-07-01T12:15:00'); // summer time, +02:00
    expect(at('2026-07-01T10:15Z')).toBe('2026-07-01T12:15:00');
    expect(at('2026-11-26T00:00:00')).toBe('2026-11-26T00:00:00');
    expect(at('2026-11-26')).toBe('2026-11-26');
    expect(at('tomorrow+01:00')).toBe('tomorrow+01:00');
    // Only fields marked as Oslo date-times: the webhook `expires` keeps its offset.
    expect(bind({ CustomerId: '1', Status: 0, Expires: '2027-01-23T10:15:00.0000000+01:00' })).toMatchObject({
      Expires: '2027-01-23T10:15:00.0000000+01:00',
    });
  });

  test('query strings bind the same way', () => {
    const q = compileQueryBinder(schema);
    expect(q({ customerid: '1000', weight: '12', when: '2026-11-25T23:00:00Z', length: '0' })).toEqual({
      CustomerId: '1000',
      Weight: 12,
      When: '2026-11-26T00:00:00',
    });
  });
});

describe('property: a lenient spelling binds to the same value as the strict one', () => {
  const validate = bodyAjv.compile(ShipmentUpdateRequest);
  const bindBooking = compileBinder(ShipmentUpdateRequest as never);
  const strict = (weight: number, length: number, customer: number, service: number) => ({
    ShipmentStatus: 'Draft',
    CustomerId: String(customer),
    ProductCode: '43',
    DeliveryType: 1,
    Services: [String(service)],
    Parcels: [{ Weight: weight, Length: length }],
  });

  test('numeric strings, numbers for strings, and 0 measures', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }).map((g) => g / 1000),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 999_999 }),
        fc.integer({ min: 1, max: 99 }),
        (weight, length, customer, service) => {
          const wanted = strict(weight, length, customer, service);
          const lenient = {
            ...wanted,
            CustomerId: customer,
            Services: [service],
            Parcels: [{ Weight: String(weight), Length: String(length), Height: 0, Volume: '0' }],
          };
          const bound = bindBooking(lenient);
          expect(bound).toEqual(bindBooking(wanted));
          expect(validate(bound)).toBe(true);
        },
      ),
    );
  });

  test('a date-time with an offset binds to the Oslo local time of the same instant', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('2020-01-01T00:00:00Z'),
          max: new Date('2035-12-31T00:00:00Z'),
          noInvalidDate: true,
        }),
        fc.integer({ min: -12, max: 14 }),
        (instant, offsetHours) => {
          const whole = new Date(Math.floor(instant.getTime() / 1000) * 1000);
          const shifted = new Date(whole.getTime() + offsetHours * 3_600_000);
          const sign = offsetHours < 0 ? '-' : '+';
          const hh = String(Math.abs(offsetHours)).padStart(2, '0');
          const withOffset = `${shifted.toISOString().slice(0, 19)}${sign}${hh}:00`;
          const local = toOsloLocal(withOffset);
          expect(local).toBe(toOsloLocal(whole.toISOString().replace(/\.\d{3}Z$/, 'Z')));
          // Read back as Oslo time, it is the same instant (outside the autumn hour that repeats).
          const back = new Date(
            new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Oslo', timeZoneName: 'longOffset' })
              .formatToParts(whole)
              .find((p) => p.type === 'timeZoneName')
              ?.value.replace('GMT', '')
              .replace(/^$/, '+00:00')
              .replace(/^/, `${local}`) ?? '',
          );
          expect(back.getTime()).toBe(whole.getTime());
        },
      ),
    );
  });
});

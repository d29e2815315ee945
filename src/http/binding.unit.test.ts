import fc from 'fast-check';
import { Type } from 'typebox';
import { describe, expect, test } from 'vitest';
import type { ValidationFailed } from '../lib/errors';
import { compileBinder, compileQueryBinder } from './binding';

const schema = Type.Object({
  ShipmentId: Type.Optional(Type.String()),
  Parcels: Type.Array(
    Type.Object({ ParcelId: Type.Optional(Type.String()), Weight: Type.Optional(Type.Number()) }),
  ),
  Note: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

describe('compileBinder', () => {
  const bind = compileBinder(schema);

  test('renames properties to the declared spelling, at every depth', () => {
    expect(bind({ shipmentid: 'X', PARCELS: [{ parcelid: 'A', weight: 2 }] })).toEqual({
      ShipmentId: 'X',
      Parcels: [{ ParcelId: 'A', Weight: 2 }],
    });
  });

  test('drops null for properties that do not accept null, keeps it where null is allowed', () => {
    expect(bind({ ShipmentId: null, Note: null, Parcels: [] })).toEqual({ Note: null, Parcels: [] });
  });

  test('drops undeclared properties, at every depth, and keeps non-object values as they are', () => {
    expect(bind({ Extra: 1, Parcels: 'x' })).toEqual({ Parcels: 'x' });
    expect(bind({ Parcels: [{ Weight: 1, Secret: { a: 1 } }] })).toEqual({ Parcels: [{ Weight: 1 }] });
    expect(bind([1, 2])).toEqual([1, 2]);
    expect(bind('text')).toBe('text');
  });

  test('keeps undeclared properties for a schema that judges them (additionalProperties)', () => {
    const strict = compileBinder(Type.Object({ A: Type.Number() }, { additionalProperties: false }));
    expect(strict({ a: 1, B: 2 })).toEqual({ A: 1, B: 2 });
    const map = compileBinder(Type.Object({}, { additionalProperties: Type.String() }));
    expect(map({ 'X-Key': 'v' })).toEqual({ 'X-Key': 'v' });
  });

  test('any casing of a declared name binds to it (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }), (upper) => {
        const name = [...'shipmentid'].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('');
        expect(bind({ [name]: 'v', Parcels: [] })).toEqual({ ShipmentId: 'v', Parcels: [] });
      }),
    );
  });
});

describe('compileQueryBinder', () => {
  const bind = compileQueryBinder(schema);

  test('groups ASP.NET-style indexed lists, in index order, then binds their names', () => {
    expect(
      bind({
        shipmentid: 'X',
        'parcels[1].weight': '7',
        'parcels[0][parcelid]': 'A',
        'parcels[0].Weight': '2',
      }),
    ).toEqual({ ShipmentId: 'X', Parcels: [{ ParcelId: 'A', Weight: 2 }, { Weight: 7 }] });
  });

  test('leaves a query without indexed names as it is, apart from the names', () => {
    expect(bind({ note: 'n' })).toEqual({ Note: 'n' });
  });

  const prices = compileQueryBinder(
    Type.Object({
      Weight: Type.Optional(Type.Number()),
      Services: Type.Optional(Type.Array(Type.String())),
      Parcels: Type.Optional(Type.Array(Type.Object({ Weight: Type.Optional(Type.Number()) }))),
      IsDangerousGoods: Type.Optional(Type.Boolean()),
      DeliveryType: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
    }),
  );

  test('an indexed list of plain values (`service[0]=16`) is a list, as ASP.NET binds it', () => {
    expect(prices({ 'services[1]': '35', 'Services[0]': '16' })).toEqual({ Services: ['16', '35'] });
  });

  test('one list however its name is spelt: `parcels[0]` and `Parcels[1]` are two parcels', () => {
    expect(prices({ 'parcels[0].weight': '30', 'Parcels[1].Weight': '31' })).toEqual({
      Parcels: [{ Weight: 30 }, { Weight: 31 }],
    });
  });

  test('an indexed list must run from 0 without a gap; the missing item is named as declared', () => {
    const missing = (query: Record<string, unknown>) => {
      try {
        prices(query);
        return null;
      } catch (err) {
        return (err as ValidationFailed).errors;
      }
    };
    expect(Object.keys(missing({ 'parcels[0].weight': '1', 'parcels[2].weight': '2' }) ?? {})).toEqual([
      'Parcels[1]',
    ]);
    expect(Object.keys(missing({ 'services[1]': '16' }) ?? {})).toEqual(['Services[0]']);
    expect(missing({ 'other[5]': 'x', 'Services[0]': '16' })).toBeNull();
    expect(missing({ 'Parcels[0].Weight': '1', 'Parcels[1].Weight': '2' })).toBeNull();
    // Every list with a gap is named, each at its first missing item.
    expect(
      Object.keys(missing({ 'Parcels[1].Weight': '1', 'Parcels[3].Weight': '1', 'services[1]': '16' }) ?? {}),
    ).toEqual(['Parcels[0]', 'Services[0]']);
    // An index of any length: too large to be real is a gap, not an unknown name to drop.
    expect(Object.keys(missing({ 'Parcels[0].Weight': '1', 'Parcels[1234567].Weight': '3' }) ?? {})).toEqual([
      'Parcels[1]',
    ]);
    // A declared list addressed in another form names no item: refused, not dropped unpriced.
    for (const name of ['Parcels[-1].Weight', 'parcels.weight', 'Parcels[0][0].Weight', 'Parcels[x]']) {
      expect(missing({ Weight: '12', [name]: '1' }), name).toEqual({
        Parcels: [
          `${name} names no item of Parcels: its items are Parcels[0], Parcels[1], … (with .Name for a property).`,
        ],
      });
    }
    expect(missing({ 'other.thing': '1', 'Parcelsx.Weight': '1' })).toBeNull();
    // A single value given indexed is no list and has no gap: `Weight[1]=5` binds as `Weight[0]=5`.
    expect(missing({ 'Weight[1]': '5' })).toBeNull();
    expect(prices({ 'Weight[1]': '5' })).toEqual(prices({ 'Weight[0]': '5' }));
  });

  test('a parameter given twice in two spellings is given twice, as one spelling given twice is', () => {
    // The schema then refuses two weights (a list), as it refuses `Weight=5&Weight=6`.
    expect(prices({ WEIGHT: '5', weight: '6' })).toEqual({ Weight: ['5', '6'] });
    expect(prices({ 'Parcels[0].Weight': '30', 'parcels[0].weight': '1' })).toEqual({
      Parcels: [{ Weight: ['30', '1'] }],
    });
    expect(prices({ services: '16', Services: ['35', '12'] })).toEqual({ Services: ['16', '35', '12'] });
  });

  test('a boolean in any case (`True`, as .NET writes one); a number of only spaces is none', () => {
    expect(prices({ isdangerousgoods: 'True' })).toEqual({ IsDangerousGoods: true });
    expect(prices({ IsDangerousGoods: ' FALSE ' })).toEqual({ IsDangerousGoods: false });
    expect(prices({ IsDangerousGoods: 'yes' })).toEqual({ IsDangerousGoods: 'yes' });
    expect(prices({ Weight: ' ', DeliveryType: ' ' })).toEqual({ Weight: '', DeliveryType: '' });
  });

  test('a blank text or boolean in a query string is not given; a blank number stays for validation', () => {
    const texts = compileQueryBinder(
      Type.Object({
        Note: Type.Optional(Type.String()),
        Flag: Type.Optional(Type.Boolean()),
        Services: Type.Optional(Type.Array(Type.String())),
        Weight: Type.Optional(Type.Number()),
      }),
    );
    expect(texts({ note: '', flag: ' ', services: '', weight: '' })).toEqual({ Weight: '' });
    expect(texts({ Services: ['16', ' ', '35'] })).toEqual({ Services: ['16', '35'] });
    expect(texts({ Services: ['', ''] })).toEqual({});
    // In a JSON body an empty string is a value (only `x-empty-absent` fields drop it).
    expect(compileBinder(Type.Object({ Note: Type.Optional(Type.String()) }))({ Note: '' })).toEqual({
      Note: '',
    });
  });

  test('a JSON body keeps its types: a string is no boolean there', () => {
    const body = compileBinder(Type.Object({ Flag: Type.Optional(Type.Boolean()) }));
    expect(body({ Flag: 'True' })).toEqual({ Flag: 'True' });
  });
});

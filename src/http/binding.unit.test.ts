import fc from 'fast-check';
import { Type } from 'typebox';
import { describe, expect, test } from 'vitest';
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

  test('keeps unknown properties and non-object values as they are', () => {
    expect(bind({ Extra: 1, Parcels: 'x' })).toEqual({ Extra: 1, Parcels: 'x' });
    expect(bind([1, 2])).toEqual([1, 2]);
    expect(bind('text')).toBe('text');
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
});

import { describe, expect, test } from 'vitest';
import { type ValidationFailed, Violations } from '../lib/errors';
import { checkCatalog, checkRequiredFields, checkServices, snapshotOf } from './rules';
import type { Catalog } from './schemas';
import { readShippedCatalog } from './service';

const { catalog } = readShippedCatalog();
const snapshot = snapshotOf(catalog);
const product = (code: string) => {
  const p = snapshot.productByCode.get(code);
  if (!p) throw new Error(`no product ${code}`);
  return p;
};
const errorsOf = (v: Violations): Record<string, string[]> => {
  try {
    v.throwIfAny();
    return {};
  } catch (e) {
    return (e as ValidationFailed).errors;
  }
};

describe('the shipped catalogue', () => {
  test('has the products and services the contract names', () => {
    for (const code of ['43', '44', 'HE', 'HJ', 'DI'])
      expect(snapshot.productByCode.has(code), code).toBe(true);
    for (const code of ['15', '16', '35']) expect(snapshot.serviceByCode.has(code), code).toBe(true);
    expect(catalog.Products.some((p) => p.International)).toBe(true);
    expect(product('43')).toMatchObject({ Name: 'System', Segment: 'B2B', UnitCodes: ['KL', 'PL'] });
    expect(product('44')).toMatchObject({ Name: 'System premium', Segment: 'B2B' });
    expect(product('DI').Name).toBe('Direct');
  });

  test('only HE and HJ allow a return shipment; only Direct allows a pickup date', () => {
    expect(
      catalog.Products.filter((p) => p.AllowsReturnShipment)
        .map((p) => p.ProductCode)
        .sort(),
    ).toEqual(['HE', 'HJ']);
    expect(catalog.Products.filter((p) => p.AllowsPickupDate).map((p) => p.ProductCode)).toEqual(['DI']);
    expect(product('HE').Segment).toBe('B2C');
    expect(product('HJ').Segment).toBe('B2C');
  });

  test('pre-notices and Fix Day require their recipient fields', () => {
    expect(snapshot.serviceByCode.get('16')?.RequiredFields).toEqual(['RecipientEmail']);
    expect(snapshot.serviceByCode.get('15')?.RequiredFields).toEqual(['RecipientPhone']);
    expect(snapshot.serviceByCode.get('35')?.RequiredFields).toEqual(['DeliveryDate']);
  });

  test('passes its own semantic checks', () => {
    const v = new Violations();
    checkCatalog(catalog, v);
    expect(v.empty).toBe(true);
  });
});

describe('checkServices', () => {
  test('unknown codes and codes not allowed with the product are reported by index', () => {
    const v = new Violations();
    const valid = checkServices(snapshot, product('HE'), ['16', '99', '11'], v, 'service');
    expect(valid.map((s) => s.ServiceCode)).toEqual(['16']);
    expect(Object.keys(errorsOf(v))).toEqual(['service[1]', 'service[2]']);
  });
});

describe('checkRequiredFields', () => {
  test('each used service reports its missing fields; empty strings count as missing', () => {
    const v = new Violations();
    checkRequiredFields(snapshot, ['15', '16', '35'], { RecipientPhone: ' ', RecipientEmail: 'a@b.no' }, v);
    expect(Object.keys(errorsOf(v)).sort()).toEqual(['DeliveryDate', 'RecipientPhone']);
  });

  test('given fields satisfy the services', () => {
    const v = new Violations();
    checkRequiredFields(snapshot, ['15'], { RecipientPhone: '+4791234567' }, v);
    expect(v.empty).toBe(true);
  });
});

describe('checkCatalog', () => {
  test('duplicate codes, undefined services, weights and windows are reported by path', () => {
    const first = catalog.Products[0];
    if (!first) throw new Error('empty catalogue');
    const broken: Catalog = {
      Services: [
        ...catalog.Services,
        { ServiceCode: '15', Name: 'Again', PriceBasis: 'shipment', RequiredFields: [] },
      ],
      Products: [
        first,
        {
          ...first,
          Services: ['77'],
          MaxShipmentWeightKg: 1,
          MaxParcelWeightKg: 2,
          PickupWindow: { From: '16:00', To: '08:00' },
        },
      ],
    };
    const v = new Violations();
    checkCatalog(broken, v);
    expect(Object.keys(errorsOf(v)).sort()).toEqual([
      'Products[1].MaxShipmentWeightKg',
      'Products[1].PickupWindow',
      'Products[1].ProductCode',
      'Products[1].Services[0]',
      `Services[${catalog.Services.length}].ServiceCode`,
    ]);
  });
});

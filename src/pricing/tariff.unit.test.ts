import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { Violations } from '../lib/errors';
import { checkTariffFits, type PricedNetwork, type TariffDocument } from './tariff';

/**
 * `checkTariffFits`: a tariff must price the routing terminals and the catalogue in force, as the
 * engines ask it to (the check `PUT /admin/tariffs` makes besides the document's own rules).
 */
const data = new URL('../../data/', import.meta.url);
const shipped = JSON.parse(readFileSync(new URL('tariffs/2026-01-01.json', data), 'utf8')) as TariffDocument;
const catalog = JSON.parse(readFileSync(new URL('catalog/catalog.json', data), 'utf8')) as {
  Products: PricedNetwork['products'];
};
const terminals = readFileSync(new URL('terminals.csv', data), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.split(',')[0] ?? '');

const network = (over: Partial<PricedNetwork> = {}): PricedNetwork => ({
  terminals: new Set(terminals),
  products: catalog.Products,
  ...over,
});
const gaps = (doc: TariffDocument, net = network()) => checkTariffFits(doc, net, new Violations()).toRecord();

describe('a tariff fits the routing terminals and the catalogue', () => {
  test('the shipped tariff fits the shipped terminals and catalogue', () => {
    expect(gaps(shipped)).toEqual({});
  });

  test('the zone matrix must cover the routing terminals in force, not those of a file; a row ahead of the routing data is allowed', () => {
    const replaced = network({ terminals: new Set([...terminals.filter((t) => t !== 'LYR'), 'NEW']) });
    expect(gaps(shipped, replaced)).toEqual({
      'Zones.NEW': ['Terminal NEW of the routing data has no row in the zone matrix.'],
    });
  });

  test('every product priced at home needs a table; an international one does not', () => {
    const doc = structuredClone(shipped);
    const table = doc.Products['43'];
    if (!table) throw new Error('the shipped tariff prices 43');
    delete doc.Products.HE;
    doc.Products.EP = structuredClone(table);
    expect(Object.keys(gaps(doc))).toEqual(['Products.HE']);
    delete doc.Products.EP;
    expect(Object.keys(gaps(doc))).toEqual(['Products.HE']);
  });

  test('the volume factor is the one the catalogue shows customers (GET /v1/products)', () => {
    const doc = structuredClone(shipped);
    const table = doc.Products['43'];
    if (!table || !doc.International) throw new Error('the shipped tariff prices 43 and abroad');
    table.VolumeFactorKgPerDm3 = '1.000';
    doc.International.VolumeFactorKgPerM3 = 250;
    expect(gaps(doc)).toEqual({
      'Products[43].VolumeFactorKgPerDm3': [
        'The catalogue charges 0.333 kg per dm³ for product 43, not 1.000.',
      ],
      'International.VolumeFactorKgPerM3': [
        'Product EP of the catalogue charges 0.333 kg per dm³, not 250 kg per m³.',
        'Product EG of the catalogue charges 0.333 kg per dm³, not 250 kg per m³.',
      ],
    });
  });

  test('a service needs a price when a product priced at home offers it, once per service', () => {
    const doc = structuredClone(shipped);
    delete doc.Services['42'];
    delete doc.Services['18'];
    expect(gaps(doc)).toEqual({
      'Services[42]': ['Service 42 has no price; the catalogue offers it with products HE, HJ, PP.'],
      'Services[18]': ['Service 18 has no price; the catalogue offers it with product PP.'],
    });
    // A service no product offers needs no price.
    const unused = network({ products: catalog.Products.filter((p) => p.ProductCode !== 'PP') });
    expect(Object.keys(gaps(doc, unused))).toEqual(['Services[42]']);
  });

  test('international services need an international price when the tariff has International, but 12 never', () => {
    const doc = structuredClone(shipped);
    if (!doc.International) throw new Error('the shipped tariff prices international shipments');
    // 12 (offered with EP and EG) is the DangerousGoods fee, never in Services.
    expect(doc.International.Services).not.toHaveProperty(['12']);
    delete doc.International.Services['11'];
    expect(gaps(doc)).toEqual({
      'International.Services[11]': [
        'Service 11 has no international price; the catalogue offers it with product EG.',
      ],
    });
    delete doc.International;
    expect(gaps(doc)).toEqual({});
  });

  test('a service or product the catalogue does not offer yet may be priced (the tariff comes first)', () => {
    const doc = structuredClone(shipped);
    doc.Services.Z9 = '1.00';
    doc.Products.ZZ = structuredClone(doc.Products['43'] as NonNullable<(typeof doc.Products)['43']>);
    expect(gaps(doc)).toEqual({});
  });
});

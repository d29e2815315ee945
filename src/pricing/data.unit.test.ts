import { readdirSync, readFileSync } from 'node:fs';
import { Value } from 'typebox/value';
import { describe, expect, test } from 'vitest';
import { Violations } from '../lib/errors';
import { compileTariff } from './compiled-tariff';
import { assertRateRules, ExchangeRateTableSchema } from './rates';
import { assertTariffRules, checkTariffFits, type TariffDocument, TariffDocumentSchema } from './tariff';

/** The shipped tariff versions and exchange-rate tables are valid and fit the rest of the shipped data. */
const data = new URL('../../data/', import.meta.url);
const jsonFiles = (folder: string) =>
  readdirSync(new URL(`${folder}/`, data))
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({
      f,
      content: JSON.parse(readFileSync(new URL(`${folder}/${f}`, data), 'utf8')) as unknown,
    }));

const terminals = readFileSync(new URL('terminals.csv', data), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.split(',')[0] ?? '');
const catalog = JSON.parse(readFileSync(new URL('catalog/catalog.json', data), 'utf8')) as {
  Products: {
    ProductCode: string;
    International: boolean;
    Services: string[];
    VolumeFactorKgPerDm3: number;
  }[];
  Services: { ServiceCode: string }[];
};
const postalCodes = new Set(
  readFileSync(new URL('postal-codes-no.csv', data), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(',')[0]),
);

describe('shipped tariffs', () => {
  const files = jsonFiles('tariffs');
  test('there is at least one version, named by its ValidFrom', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const { f, content } of files) expect(f).toBe(`${(content as TariffDocument).ValidFrom}.json`);
  });

  for (const { f, content } of files) {
    describe(f, () => {
      const doc = content as TariffDocument;
      test('matches the format and its rules', () => {
        expect([...Value.Errors(TariffDocumentSchema, content)]).toEqual([]);
        expect(() => assertTariffRules(doc)).not.toThrow();
      });

      test('connects every terminal of data/terminals.csv with every other', () => {
        const zones = compileTariff(doc).zones;
        for (const from of terminals)
          for (const to of terminals) expect(zones.get(from)?.get(to)).toBeDefined();
      });

      test('prices every domestic product and every service of the catalogue', () => {
        for (const p of catalog.Products.filter((p) => !p.International))
          expect(doc.Products).toHaveProperty([p.ProductCode]);
        for (const p of catalog.Products.filter((p) => p.International)) {
          expect(doc.International?.Products).toHaveProperty([p.ProductCode]);
        }
        for (const s of catalog.Services) expect(doc.Services).toHaveProperty([s.ServiceCode]);
      });

      test('fits the shipped terminals and catalogue as PUT /admin/tariffs checks it', () => {
        const network = {
          terminals: new Set(terminals),
          products: catalog.Products,
        };
        expect(checkTariffFits(doc, network, new Violations()).toRecord()).toEqual({});
      });

      test('every postal addition covers postal codes of the register', () => {
        for (const a of doc.PostalAdditions) {
          expect([...postalCodes].some((z) => z !== undefined && z >= a.FromZip && z <= a.ToZip)).toBe(true);
        }
      });
    });
  }
});

describe('shipped exchange rates', () => {
  test('every table matches the format and names ISO 4217 currencies, NOK included', () => {
    const files = jsonFiles('exchange-rates');
    expect(files.length).toBeGreaterThan(0);
    for (const { content } of files) {
      expect([...Value.Errors(ExchangeRateTableSchema, content)]).toEqual([]);
      const table = content as { Rates: Record<string, string> };
      expect(() => assertRateRules(content as never)).not.toThrow();
      expect(table.Rates).toHaveProperty('NOK');
    }
  });
});

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import type { Catalog } from '../catalog/schemas';
import type { TariffDocument } from './tariff';

// Every tariff version still to be used prices everything the catalogue offers. A catalogue replace
// and a tariff put judge each other as stored, under one lock; a delete may not put in force a
// version that leaves an offered product unpriced.

let ctx: TestContext;
beforeAll(async () => {
  // Monday 23 November 2026: the shipped version of 2026-01-01 is in force.
  ctx = await buildTestApp({ clock: () => new Date('2026-11-23T09:00:00Z') });
});
afterAll(() => ctx.close());

const shippedTariff = (): TariffDocument =>
  JSON.parse(readFileSync(new URL('../../data/tariffs/2026-01-01.json', import.meta.url), 'utf8'));
const shippedCatalog = (): Catalog =>
  JSON.parse(readFileSync(new URL('../../data/catalog/catalog.json', import.meta.url), 'utf8'));
const withoutHJ = (): Catalog => {
  const catalog = shippedCatalog();
  catalog.Products = catalog.Products.filter((p) => p.ProductCode !== 'HJ');
  return catalog;
};
const admin = (method: 'PUT' | 'DELETE', url: string, payload?: object) =>
  ctx.app.inject({ method, url, headers: bearer(ADMIN_KEY), ...(payload === undefined ? {} : { payload }) });

test('a catalogue offering a product and a tariff dropping its prices, at once: one is refused', async () => {
  const tariffWithoutHJ = shippedTariff();
  tariffWithoutHJ.ValidFrom = '2026-06-01'; // in force today, over 2026-01-01
  delete tariffWithoutHJ.Products.HJ;
  // Each judged the other as it was before either wrote, and both passed.
  for (let round = 0; round < 8; round++) {
    expect((await admin('PUT', '/admin/catalog', withoutHJ())).statusCode).toBe(200);
    const [catalog, tariff] = await Promise.all([
      admin('PUT', '/admin/catalog', shippedCatalog()),
      admin('PUT', '/admin/tariffs', tariffWithoutHJ),
    ]);
    const passed = [catalog, tariff].filter((r) => r.statusCode === 200);
    expect(passed, `round ${round}: ${catalog.body} / ${tariff.body}`).toHaveLength(1);
    if (tariff.statusCode === 200)
      expect((await admin('DELETE', '/admin/tariffs/2026-06-01')).statusCode).toBe(204);
  }
});

test('a delete that would put in force a version not pricing an offered product is refused', async () => {
  // The catalogue without HJ; 2026-01-01 without HJ; a later 2026-06-01 with it; then HJ offered.
  expect((await admin('PUT', '/admin/catalog', withoutHJ())).statusCode).toBe(200);
  const older = shippedTariff();
  delete older.Products.HJ;
  expect((await admin('PUT', '/admin/tariffs', older)).statusCode).toBe(200);
  const newer = shippedTariff();
  newer.ValidFrom = '2026-06-01';
  expect((await admin('PUT', '/admin/tariffs', newer)).statusCode).toBe(200);
  expect((await admin('PUT', '/admin/catalog', shippedCatalog())).statusCode).toBe(200);
  const res = await admin('DELETE', '/admin/tariffs/2026-06-01');
  expect(res.statusCode).toBe(409);
  expect(json<{ detail: string }>(res).detail).toBe(
    'Without this version the tariff valid from 2026-01-01 is in force, and it does not price what the catalogue offers: Product HJ of the catalogue has no price table.',
  );
  // Once HJ is no longer offered, the older version may take over.
  expect((await admin('PUT', '/admin/catalog', withoutHJ())).statusCode).toBe(200);
  expect((await admin('DELETE', '/admin/tariffs/2026-06-01')).statusCode).toBe(204);
});

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import type { TariffDocument } from './tariff';

// Every tariff version still to be used (the one in force today and the later ones) weighs every
// special unit code an agreement lists: an agreement naming a code no such version weighs, a tariff
// upload that drops a code in use, and a delete that puts such a version in force are refused.

let ctx: TestContext;
beforeAll(async () => {
  // Monday 23 November 2026: the shipped version of 2026-01-01 (units 51 and 52) is in force.
  ctx = await buildTestApp({ clock: () => new Date('2026-11-23T09:00:00Z') });
  await ctx.services.customers.create({
    CustomerNr: '2000',
    Name: 'Pallebruker AS',
    Agreement: { SpecialUnitCodes: ['51'] },
  });
});
afterAll(() => ctx.close());

const shipped = (): TariffDocument =>
  JSON.parse(readFileSync(new URL('../../data/tariffs/2026-01-01.json', import.meta.url), 'utf8'));
/** The shipped tariff from `validFrom`, without a unit weight for 51. */
const without51 = (validFrom: string) => {
  const doc = shipped();
  doc.ValidFrom = validFrom;
  delete doc.ChargeableWeight.UnitWeightsKg['51'];
  return doc;
};
const admin = (method: 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) =>
  ctx.app.inject({ method, url, headers: bearer(ADMIN_KEY), ...(payload === undefined ? {} : { payload }) });
const errors = (res: { json(): unknown }) => (res.json() as { errors: Record<string, string[]> }).errors;

test('an agreement names only special unit codes the tariffs still to be used weigh', async () => {
  const unweighed = await admin('POST', '/admin/customers', {
    CustomerNr: '2100',
    Name: 'Ny Avtale AS',
    Agreement: { SpecialUnitCodes: ['52', '57'] },
  });
  expect(unweighed.statusCode).toBe(400);
  expect(errors(unweighed)).toEqual({
    'Agreement.SpecialUnitCodes[1]': ['Unit code 57 has no unit weight in the tariff valid from 2026-01-01.'],
  });
  const weighed = await admin('POST', '/admin/customers', {
    CustomerNr: '2100',
    Name: 'Ny Avtale AS',
    Agreement: { SpecialUnitCodes: ['52'] },
  });
  expect(weighed.statusCode, weighed.body).toBe(201);
  // A correction is held to the same rule.
  const corrected = await admin('PUT', '/admin/customers/2100', {
    Name: 'Ny Avtale AS',
    Agreement: { SpecialUnitCodes: ['60'] },
  });
  expect(corrected.statusCode).toBe(400);
  expect(Object.keys(errors(corrected))).toEqual(['Agreement.SpecialUnitCodes[0]']);
});

test('a tariff version still to be used must weigh the codes in use; a superseded one need not', async () => {
  const future = await admin('PUT', '/admin/tariffs', without51('2027-01-01'));
  expect(future.statusCode).toBe(400);
  expect(errors(future)).toEqual({
    'ChargeableWeight.UnitWeightsKg': [
      'Unit code 51 is in the agreement of customer 2000 and needs a unit weight.',
    ],
  });
  // Before 2026-01-01 and superseded by it: never used again for a new price.
  const past = await admin('PUT', '/admin/tariffs', without51('2025-01-01'));
  expect(past.statusCode, past.body).toBe(200);
  // Weighing it, a later version is loaded.
  const weighing = shipped();
  weighing.ValidFrom = '2027-01-01';
  expect((await admin('PUT', '/admin/tariffs', weighing)).statusCode).toBe(200);
});

test('a delete that would put in force a version without a code in use is refused', async () => {
  // Without 2026-01-01, the version of 2025-01-01 (no 51) would be in force today.
  const res = await admin('DELETE', '/admin/tariffs/2026-01-01');
  expect(res.statusCode).toBe(409);
  expect(json<{ detail: string }>(res).detail).toBe(
    'Without this version the tariff valid from 2025-01-01 is in force, and it has no unit weight for 51 (agreement of customer 2000).',
  );
  const versions = json<{ ValidFrom: string }[]>(
    await ctx.app.inject({ url: '/admin/tariffs', headers: bearer(ADMIN_KEY) }),
  );
  expect(versions.map((v) => v.ValidFrom)).toEqual(['2025-01-01', '2026-01-01', '2027-01-01']);
  // A later version weighing 51 may go: the one in force today stays.
  expect((await admin('DELETE', '/admin/tariffs/2027-01-01')).statusCode).toBe(204);
  // Once no agreement lists 51, the older version may take over.
  const dropped = await admin('PUT', '/admin/customers/2000', { Name: 'Pallebruker AS', Agreement: {} });
  expect(dropped.statusCode, dropped.body).toBe(200);
  expect((await admin('DELETE', '/admin/tariffs/2026-01-01')).statusCode).toBe(204);
});

test('a tariff put dropping a code and an agreement naming it, at once: one of them is refused', async () => {
  // In force from 1 November (and the only version still to be used): it weighs unit code 60.
  const weighing60 = shipped();
  weighing60.ValidFrom = '2026-11-01';
  weighing60.ChargeableWeight.UnitWeightsKg['60'] = 80;
  expect((await admin('PUT', '/admin/tariffs', weighing60)).statusCode).toBe(200);
  expect(
    (await admin('POST', '/admin/customers', { CustomerNr: '2200', Name: 'Samtidig AS' })).statusCode,
  ).toBe(201);
  const without60 = shipped();
  without60.ValidFrom = '2028-01-01';
  // Each judges the other's rows; unserialised, both read before either wrote, and both passed.
  for (let round = 0; round < 10; round++) {
    const [tariff, agreement] = await Promise.all([
      admin('PUT', '/admin/tariffs', without60),
      admin('PUT', '/admin/customers/2200', { Name: 'Samtidig AS', Agreement: { SpecialUnitCodes: ['60'] } }),
    ]);
    const passed = [tariff, agreement].filter((r) => r.statusCode === 200);
    expect(passed, `round ${round}: ${tariff.body} / ${agreement.body}`).toHaveLength(1);
    const reset =
      tariff.statusCode === 200
        ? await admin('DELETE', '/admin/tariffs/2028-01-01')
        : await admin('PUT', '/admin/customers/2200', { Name: 'Samtidig AS', Agreement: {} });
    expect(reset.statusCode, reset.body).toBeLessThan(300);
  }
});

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import type { TariffDocument } from '../pricing/tariff';
import type { Catalog, Product, ServiceDef } from './schemas';
import { readShippedCatalog } from './service';

let ctx: TestContext;
let key: string;

beforeAll(async () => {
  ctx = await buildTestApp();
  key = await ctx.keyFor({ scopes: ['booking'] });
});
afterAll(() => ctx.close());

const get = (url: string, k = key) => ctx.app.inject({ url, headers: bearer(k) });
const errorKeys = (res: { json(): unknown }) => Object.keys((res.json() as { errors: object }).errors).sort();

describe('GET /v1/products', () => {
  test('lists every product with the contract fields', async () => {
    const res = await get('/v1/products');
    expect(res.statusCode).toBe(200);
    const products = json<Product[]>(res) as unknown as Product[];
    expect(products.map((p) => p.ProductCode)).toEqual(
      expect.arrayContaining(['43', '44', 'HE', 'HJ', 'DI']),
    );
    expect(products.some((p) => p.International)).toBe(true);
    for (const p of products) {
      expect(Object.keys(p)).toEqual(
        expect.arrayContaining([
          'ProductCode',
          'Name',
          'Segment',
          'UnitCodes',
          'Services',
          'MaxParcelWeightKg',
          'MaxShipmentWeightKg',
          'International',
          'VolumeFactorKgPerDm3',
          'PickupWindow',
          'DeliveryWindow',
        ]),
      );
    }
  });

  test('one product by code, in any letter case', async () => {
    const res = await get('/v1/products/43');
    expect(res.statusCode).toBe(200);
    expect(json(res)).toMatchObject({
      ProductCode: '43',
      Name: 'System',
      Segment: 'B2B',
      UnitCodes: ['KL', 'PL'],
    });
    expect(json(await get('/v1/products/he'))).toMatchObject({
      ProductCode: 'HE',
      AllowsReturnShipment: true,
    });
  });

  test('an unknown product is 404; a malformed code is 400 naming productCode', async () => {
    expect((await get('/v1/products/ZZ')).statusCode).toBe(404);
    const bad = await get('/v1/products/TOOLONG');
    expect(bad.statusCode).toBe(400);
    expect(errorKeys(bad)).toEqual(['productCode']);
  });

  test('needs a key', async () => {
    expect((await ctx.app.inject({ url: '/v1/products' })).statusCode).toBe(401);
  });
});

describe('GET /v1/services', () => {
  test('lists every service with price basis and required fields', async () => {
    const services = json<ServiceDef[]>(await get('/v1/services')) as unknown as ServiceDef[];
    const byCode = new Map(services.map((s) => [s.ServiceCode, s]));
    expect(byCode.get('16')).toEqual({
      ServiceCode: '16',
      Name: 'Pre-notice e-mail',
      PriceBasis: 'shipment',
      RequiredFields: ['RecipientEmail'],
    });
    expect(byCode.get('15')?.RequiredFields).toEqual(['RecipientPhone']);
    expect(byCode.get('35')?.RequiredFields).toEqual(['DeliveryDate']);
  });

  test('one service by code; unknown is 404, malformed is 400 naming serviceCode', async () => {
    expect(json(await get('/v1/services/35'))).toMatchObject({ ServiceCode: '35', Name: 'Fix Day' });
    expect((await get('/v1/services/99')).statusCode).toBe(404);
    const bad = await get('/v1/services/1-2');
    expect(bad.statusCode).toBe(400);
    expect(errorKeys(bad)).toEqual(['serviceCode']);
  });

  test('with productCode, only the services of that product', async () => {
    const services = json<ServiceDef[]>(await get('/v1/services?productcode=he')) as unknown as ServiceDef[];
    const he = json<Product>(await get('/v1/products/HE'));
    expect(services.map((s) => s.ServiceCode).sort()).toEqual([...(he.Services as string[])].sort());
  });

  test('an unknown productCode is a 400 naming it', async () => {
    const res = await get('/v1/services?productCode=ZZ');
    expect(res.statusCode).toBe(400);
    expect(errorKeys(res)).toEqual(['productCode']);
  });
});

describe('admin catalogue', () => {
  const shipped = readShippedCatalog().catalog;
  const put = (payload: unknown, k = ADMIN_KEY) =>
    ctx.app.inject({ method: 'PUT', url: '/admin/catalog', headers: bearer(k), payload: payload as object });

  test('reading and replacing need the admin scope', async () => {
    expect((await get('/admin/catalog')).statusCode).toBe(403);
    expect((await put(shipped, key)).statusCode).toBe(403);
  });

  test('replaces at once follow one another: each answers 200, none collides with the other', async () => {
    for (let round = 0; round < 8; round++) {
      const answers = await Promise.all([put(shipped), put(shipped)]);
      expect(answers.map((r) => r.statusCode)).toEqual([200, 200]);
    }
    expect(json(await get('/admin/catalog', ADMIN_KEY))).toEqual(shipped);
  });

  test('GET /admin/catalog gives the catalogue in the replace format', async () => {
    const res = await get('/admin/catalog', ADMIN_KEY);
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual(shipped);
  });

  test('schema and semantic violations are 400s naming the paths, and change nothing', async () => {
    const [first] = shipped.Products;
    const broken = {
      Services: shipped.Services,
      Products: [first, { ...first, Services: ['77'] }],
    };
    const res = await put(broken);
    expect(res.statusCode).toBe(400);
    expect(errorKeys(res)).toEqual(['Products[1].ProductCode', 'Products[1].Services[0]']);
    const schema = await put({ Services: shipped.Services, Products: [{ ...first, Segment: 'B2X' }] });
    expect(schema.statusCode).toBe(400);
    expect(errorKeys(schema)).toEqual(['Products[0].Segment']);
    // A name the catalogue does not have is refused, not dropped (a misspelt optional one would read as left out).
    const misspelt = await put({
      Services: shipped.Services,
      Products: [{ ...first, PickupWindw: { From: '06:00', To: '09:00' } }],
    });
    expect(errorKeys(misspelt)).toEqual(['Products[0].PickupWindw']);
    // A code listed twice would show twice in /v1/products: refused, naming the list.
    const [service] = first?.Services ?? [];
    const twice = await put({
      Services: shipped.Services,
      Products: [{ ...first, Services: [service, service], UnitCodes: ['KL', 'KL'] }],
    });
    expect(errorKeys(twice).sort()).toEqual(['Products[0].Services', 'Products[0].UnitCodes']);
    expect(json<{ errors: Record<string, string[]> }>(twice).errors['Products[0].Services']).toEqual([
      'The Services field lists the same value twice (items 0 and 1).',
    ]);
    expect((await get('/v1/products/ZZ')).statusCode).toBe(404);
    expect(json<Product[]>(await get('/v1/products'))).toHaveLength(shipped.Products.length);
  });

  const putTariff = (doc: unknown) =>
    ctx.app.inject({
      method: 'PUT',
      url: '/admin/tariffs',
      headers: bearer(ADMIN_KEY),
      payload: doc as object,
    });
  const tariff = async (validFrom: string) =>
    json<TariffDocument>(await get(`/admin/tariffs/${validFrom}`, ADMIN_KEY)) as unknown as TariffDocument;

  test('every product must be priced by the tariff in force and every later one: the tariff first, then the catalogue', async () => {
    const first = shipped.Products.find((p) => p.ProductCode === '43');
    if (!first) throw new Error('the shipped catalogue has 43');
    // A new product offering a new service.
    const extra = { ...(shipped.Services[0] as ServiceDef), ServiceCode: '98', Name: 'Test service' };
    const withZz: Catalog = {
      Services: [...shipped.Services, extra],
      Products: [
        ...shipped.Products,
        { ...first, ProductCode: 'ZZ', Name: 'Test product', Services: [...first.Services, '98'] },
      ],
    };
    const zz = shipped.Products.length;
    const zz98 = `Products[${zz}].Services[${first.Services.length}]`;
    const refused = await put(withZz);
    expect(refused.statusCode).toBe(400);
    expect(json(refused)).toMatchObject({
      errors: {
        [`Products[${zz}].ProductCode`]: [
          'Product ZZ of the catalogue has no price table in the tariff valid from 2026-01-01.',
        ],
        [zz98]: ['Service 98 has no price in the tariff valid from 2026-01-01.'],
      },
    });
    expect((await get('/v1/products/ZZ')).statusCode).toBe(404);

    // A volume factor other than the tariff's, and a service it does not price, name their fields.
    const [fortyThree, i] = [first, shipped.Products.indexOf(first)];
    const unpriced = await put({
      Services: [...shipped.Services, { ...shipped.Services[0], ServiceCode: '99', Name: 'Unpriced' }],
      Products: shipped.Products.map((p) =>
        p === fortyThree ? { ...p, VolumeFactorKgPerDm3: 0.25, Services: [...p.Services, '99'] } : p,
      ),
    });
    expect(unpriced.statusCode).toBe(400);
    expect(json(unpriced)).toMatchObject({
      errors: {
        [`Products[${i}].VolumeFactorKgPerDm3`]: [
          'The catalogue charges 0.25 kg per dm³ for product 43, not 0.333 in the tariff valid from 2026-01-01.',
        ],
        [`Products[${i}].Services[${fortyThree.Services.length}]`]: [
          'Service 99 has no price in the tariff valid from 2026-01-01.',
        ],
      },
    });

    // A later version must price it too; a version no longer used need not.
    const current = await tariff('2026-01-01');
    const priced = {
      ...current,
      Products: { ...current.Products, ZZ: current.Products['43'] },
      Services: { ...current.Services, '98': '5.00' },
    };
    expect((await putTariff({ ...current, ValidFrom: '2099-01-01' })).statusCode).toBe(200);
    expect((await putTariff(priced)).statusCode).toBe(200);
    const later = await put(withZz);
    expect(later.statusCode).toBe(400);
    expect(Object.keys((json(later) as { errors: object }).errors)).toEqual([
      `Products[${zz}].ProductCode`,
      zz98,
    ]);
    expect(JSON.stringify(json(later))).toContain('the tariff valid from 2099-01-01');
    expect((await putTariff({ ...priced, ValidFrom: '2099-01-01' })).statusCode).toBe(200);
    expect((await putTariff({ ...current, ValidFrom: '2025-01-01' })).statusCode).toBe(200);

    const res = await put(withZz);
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({
      Products: shipped.Products.length + 1,
      Services: shipped.Services.length + 1,
    });
    expect(json(await get('/v1/products/ZZ'))).toMatchObject({ Name: 'Test product' });
    // Kept over the shipped file at the next start.
    expect(await ctx.services.catalog.loadShipped()).toBe(false);
    expect((await get('/v1/products/zz')).statusCode).toBe(200);
    const price = await get(
      '/v3/Calculate/?Customernr=1000&SenderZip=0150&ReceiverZip=5003&Weight=12&ProductCode=ZZ&Services=98',
      await ctx.keyFor({ scopes: ['price'], customerNrs: ['1000'] }),
    );
    expect(price.statusCode, price.body).toBe(200);
    expect(json(price)).toMatchObject({ Services: [{ ServiceCode: '98', ServiceCost: 5 }] });
  });
});

describe('API reference', () => {
  test('the companion interfaces are in /openapi.json with their schemas', async () => {
    const res = await ctx.app.inject({ url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = (res.json() as { paths: Record<string, Record<string, { tags?: string[] }>> }).paths;
    for (const path of [
      '/v1/products',
      '/v1/products/{productCode}',
      '/v1/services',
      '/v1/services/{serviceCode}',
      '/v1/schedule/deliverydates',
      '/v1/schedule/workingdays',
      '/v1/pickuppoints',
      '/v1/pickuppoints/{id}',
      '/v1/terminals',
      '/admin/catalog',
      '/admin/terminals',
      '/admin/pickup-points',
    ]) {
      expect(paths[path], path).toBeDefined();
    }
    expect(paths['/v1/schedule/deliverydates']?.get?.tags).toEqual(['Schedule']);
  });
});

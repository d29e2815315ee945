import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authErrors, problemResponses } from '../http/schemas';
import { notFound, ValidationFailed } from '../lib/errors';
import { CatalogSchema, ProductSchema, ServiceDefSchema } from './schemas';
import type { CatalogService } from './service';

const tags = ['Products'];
const CodeParam = (name: string) =>
  Type.String({
    pattern: '^[0-9A-Za-z]{1,4}$',
    'x-error': `The ${name} field must be 1 to 4 letters or digits.`,
  });

export const catalogRoutes: FastifyPluginAsyncTypebox<{ catalog: CatalogService }> = async (
  app,
  { catalog },
) => {
  app.get(
    '/v1/products',
    {
      schema: {
        tags,
        summary: 'List the products',
        description: 'Every product with its segment, unit codes, allowed services, limits and time windows.',
        response: { 200: Type.Array(ProductSchema), ...authErrors },
      },
    },
    () => catalog.products(),
  );

  app.get(
    '/v1/products/:productCode',
    {
      schema: {
        tags,
        summary: 'Read one product',
        params: Type.Object({ productCode: CodeParam('productCode') }),
        response: { 200: ProductSchema, ...problemResponses(400, 404), ...authErrors },
      },
    },
    async (request) => {
      const code = request.params.productCode.toUpperCase();
      const product = await catalog.product(code);
      if (!product) throw notFound(`Product ${code}`);
      return product;
    },
  );

  app.get(
    '/v1/services',
    {
      schema: {
        tags,
        summary: 'List the services (options)',
        description:
          'Every service with its price basis and the booking fields it requires. With `productCode`, only the services allowed with that product.',
        querystring: Type.Object({ productCode: Type.Optional(CodeParam('productCode')) }),
        response: { 200: Type.Array(ServiceDefSchema), ...problemResponses(400), ...authErrors },
      },
    },
    async (request) => {
      const code = request.query.productCode?.toUpperCase();
      if (code === undefined) return catalog.services();
      const product = await catalog.product(code);
      if (!product) throw new ValidationFailed({ productCode: [`Product ${code} does not exist.`] });
      const allowed = new Set(product.Services);
      return (await catalog.services()).filter((s) => allowed.has(s.ServiceCode));
    },
  );

  app.get(
    '/v1/services/:serviceCode',
    {
      schema: {
        tags,
        summary: 'Read one service',
        params: Type.Object({ serviceCode: CodeParam('serviceCode') }),
        response: { 200: ServiceDefSchema, ...problemResponses(400, 404), ...authErrors },
      },
    },
    async (request) => {
      const code = request.params.serviceCode.toUpperCase();
      const service = await catalog.service(code);
      if (!service) throw notFound(`Service ${code}`);
      return service;
    },
  );

  app.get(
    '/admin/catalog',
    {
      config: { scope: 'admin' as const },
      schema: {
        tags: ['Administration'],
        summary: 'Read the whole catalogue',
        description: 'In the format `PUT /admin/catalog` takes (`docs/catalogue.md`).',
        response: { 200: CatalogSchema, ...authErrors },
      },
    },
    async () => ({ Services: [...(await catalog.services())], Products: [...(await catalog.products())] }),
  );

  app.put(
    '/admin/catalog',
    {
      config: { scope: 'admin' as const },
      schema: {
        tags: ['Administration'],
        summary: 'Replace the catalogue',
        description:
          'Replaces every product and service in one go (format in `docs/catalogue.md`). Codes must be unique, every product’s services defined, and every product and the services it offers priced by the tariff version in force and every later one (put the tariff first; `docs/tariffs.md`). The shipped catalogue no longer overwrites it.',
        body: CatalogSchema,
        response: {
          200: Type.Object({ Products: Type.Integer(), Services: Type.Integer() }),
          ...problemResponses(400),
          ...authErrors,
        },
      },
    },
    async (request) => {
      const r = await catalog.replace(request.body);
      return { Products: r.products, Services: r.services };
    },
  );
};

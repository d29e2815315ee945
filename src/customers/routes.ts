import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { assertCanActFor } from '../auth/access';
import { authErrors, Nullable, problemResponses } from '../http/schemas';
import { notFound } from '../lib/errors';
import type { CustomerService } from './service';

const CustomerProfile = Type.Object({
  CustomerNr: Type.String(),
  Name: Type.String(),
  OrgNr: Nullable(Type.String()),
  PriceServiceId: Type.String({ description: 'The `CustomerId` to use with `GET /v2/europe/price`.' }),
  FreightDiscountPercent: Type.Number(),
  SpecialUnitCodes: Type.Array(Type.String()),
});

/** Extension: a customer reads its own profile, including the international price-service id. */
export const customerRoutes: FastifyPluginAsyncTypebox<{ customers: CustomerService }> = async (
  app,
  { customers },
) => {
  app.get(
    '/v1/customers/:customerNr',
    {
      schema: {
        tags: ['Customers'],
        summary: 'Read a customer the key may act for',
        params: Type.Object({
          customerNr: Type.String({
            pattern: '^[0-9]{1,10}$',
            'x-error': 'The customerNr field must be 1 to 10 digits.',
          }),
        }),
        response: { 200: CustomerProfile, ...problemResponses(400, 404), ...authErrors },
      },
    },
    async (request) => {
      const { customerNr } = request.params;
      assertCanActFor(request.account, customerNr);
      const row = await customers.get(customerNr);
      if (!row) throw notFound(`Customer ${customerNr}`);
      return {
        CustomerNr: row.customerNr,
        Name: row.name,
        OrgNr: row.orgNr,
        PriceServiceId: row.priceServiceId,
        FreightDiscountPercent: row.agreement.FreightDiscountPercent ?? 0,
        SpecialUnitCodes: row.agreement.SpecialUnitCodes ?? [],
      };
    },
  );
};

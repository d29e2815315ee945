import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authErrors, Nullable, named, problemResponses } from '../http/schemas';
import type { PostalCodeService } from './postal-codes';

const PostalCode = named(
  'PostalCode',
  Type.Object(
    {
      PostalCode: Type.String(),
      Place: Type.String(),
      MunicipalityCode: Type.String(),
      Municipality: Type.String(),
      CountyCode: Type.String(),
      County: Type.String(),
      Category: Type.String({
        description: 'G street addresses, P PO boxes, B both, S service code, F several uses.',
      }),
      Terminal: Nullable(Type.String({ description: 'Code of the terminal that serves the postal code.' })),
    },
    {
      examples: [
        {
          PostalCode: '0150',
          Place: 'OSLO',
          MunicipalityCode: '0301',
          Municipality: 'Oslo',
          CountyCode: '03',
          County: 'Oslo',
          Category: 'G',
          Terminal: 'OSL',
        },
      ],
    },
  ),
);

export const postalCodeRoutes: FastifyPluginAsyncTypebox<{ postalCodes: PostalCodeService }> = async (
  app,
  { postalCodes },
) => {
  app.get(
    '/v1/postalcodes/:postalCode',
    {
      schema: {
        tags: ['Postal codes'],
        summary: 'Look up a Norwegian postal code',
        params: Type.Object({
          postalCode: Type.String({
            pattern: '^[0-9]{4}$',
            'x-error': 'The postalCode field must be 4 digits.',
          }),
        }),
        response: { 200: PostalCode, ...problemResponses(400, 404), ...authErrors },
      },
    },
    async (request) => postalCodes.view(request.params.postalCode),
  );
};

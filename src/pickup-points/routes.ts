import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { rulesOf } from '../http/domain-rules';
import { authErrors, problemResponses } from '../http/schemas';
import { INT32_MAX } from '../lib/int32';
import { NearestQuery, type PickupPointImport, PickupPointImportSchema, PickupPointSchema } from './schemas';
import { DEFAULT_LIMIT, type PickupPointService } from './service';

const tags = ['Pickup points'];

export const pickupPointRoutes: FastifyPluginAsyncTypebox<{ pickupPoints: PickupPointService }> = async (
  app,
  { pickupPoints },
) => {
  app.get(
    '/v1/pickuppoints',
    {
      schema: {
        tags,
        summary: 'Pickup points nearest a postal code',
        description:
          'Nearest first by great-circle distance from the postal code’s position, with the distance. The shipped set is sandbox data (`Sandbox: true`) until an administrator imports a real list.',
        querystring: NearestQuery,
        response: { 200: Type.Array(PickupPointSchema), ...problemResponses(400), ...authErrors },
      },
    },
    async (request) => pickupPoints.nearestTo(request.query.postalCode, request.query.limit ?? DEFAULT_LIMIT),
  );

  app.get(
    '/v1/pickuppoints/:id',
    {
      schema: {
        tags,
        summary: 'Read one pickup point',
        params: Type.Object({
          id: Type.Integer({
            minimum: 1,
            maximum: INT32_MAX,
            'x-error': 'The id field must be a pickup point id (a positive whole number).',
          }),
        }),
        response: { 200: PickupPointSchema, ...problemResponses(400, 404), ...authErrors },
      },
    },
    async (request) => pickupPoints.view(request.params.id),
  );

  app.put(
    '/admin/pickup-points',
    {
      config: {
        scope: 'admin' as const,
        // The import's rules on the points the schema accepted, so one 400 lists both: a refused
        // point stands as {} in the list (http/domain-rules.ts `withoutRefused`).
        domainRules: rulesOf<Partial<PickupPointImport> | null>((body) =>
          Array.isArray(body?.PickupPoints) ? pickupPoints.checkImport(body.PickupPoints) : undefined,
        ),
      },
      schema: {
        tags: ['Administration'],
        summary: 'Import the pickup points',
        description:
          'Replaces every pickup point with the given list in one go (ids unique, zips in the postal register). The shipped sandbox set never overwrites an imported list.',
        body: PickupPointImportSchema,
        response: { 200: Type.Object({ Count: Type.Integer() }), ...problemResponses(400), ...authErrors },
      },
    },
    async (request) => ({ Count: (await pickupPoints.importPoints(request.body)).count }),
  );
};

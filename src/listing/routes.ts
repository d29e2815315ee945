import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { OSLO_DATETIME } from '../http/binding';
import { rulesOf } from '../http/domain-rules';
import { sendArrayPages } from '../http/json-stream';
import { authErrors, Nullable, named, problemResponses } from '../http/schemas';
import { INT32_MAX } from '../lib/int32';
import { checkListingQuery, type ListingQuery, type ListingService } from './service';

const NStr = Nullable(Type.String());

const ShipmentListRecord = named(
  'ShipmentListRecord',
  Type.Object({
    ShipmentId: Type.String(),
    RecipientName: NStr,
    RecipientAddress1: NStr,
    RecipientAddress2: NStr,
    RecipientZip: NStr,
    RecipientPlace: NStr,
    PickupName: NStr,
    PickupAddress: NStr,
    PickupZip: NStr,
    PickupPlace: NStr,
    UnitType: Type.String(),
    PickupDate: NStr,
    PickupTimeFrom: NStr,
    PickupTimeTo: NStr,
    PickedupDate: NStr,
    NumberOfUnits: Type.Integer(),
    NumberOfParcels: Type.Integer(),
    CustomerId: Type.Integer(),
    Weight: Type.Number(),
    IsSplitted: Type.Boolean(),
  }),
);

export const listingRoutes: FastifyPluginAsyncTypebox<{ listing: ListingService }> = async (
  app,
  { listing },
) => {
  app.get(
    '/v1/shipment/list',
    {
      config: {
        scope: 'shipments',
        // Judged on what the schema accepted of a refused query too, so one 400 lists every rule.
        queryRules: rulesOf<Partial<ListingQuery>>(checkListingQuery),
      },
      schema: {
        tags: ['Shipment listing'],
        summary: 'List shipments picked up at a postal code',
        description:
          'Published, not cancelled shipments of `customerid` whose pickup postal code is `postalcode` and whose pickup date is in [pickupFromDate, pickupToDate] (at most 93 days), by pickup date then id.',
        querystring: Type.Object({
          postalcode: Type.String({
            pattern: '^[0-9]{1,4}$',
            'x-error': 'The postalcode field must be a postal code (digits).',
          }),
          // The spec's `int`; no customer number is larger (customers/service.ts).
          customerid: Type.Integer({
            minimum: 0,
            maximum: INT32_MAX,
            'x-error': `The customerid field must be a customer number (a whole number up to ${INT32_MAX}).`,
          }),
          pickupFromDate: Type.String({ maxLength: 40, [OSLO_DATETIME]: true }),
          pickupToDate: Type.String({ maxLength: 40, [OSLO_DATETIME]: true }),
        }),
        response: { 200: Type.Array(ShipmentListRecord), ...problemResponses(400), ...authErrors },
      },
    },
    async (request, reply) =>
      sendArrayPages(reply, listing.list(request.account, request.query), ShipmentListRecord),
  );
};

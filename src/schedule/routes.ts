import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { rulesOf } from '../http/domain-rules';
import { authErrors, problemResponses } from '../http/schemas';
import { DeliveryDatesQuery, DeliveryPlanSchema, WorkingDaysQuery, WorkingDaysSchema } from './schemas';
import type { ScheduleService } from './service';

const tags = ['Schedule'];

export const scheduleRoutes: FastifyPluginAsyncTypebox<{ schedule: ScheduleService }> = async (
  app,
  { schedule },
) => {
  // A product code is matched in any case; a query the schema refused in part may lack it.
  const deliveryDates = (q: Partial<Static<typeof DeliveryDatesQuery>>) =>
    schedule.deliveryDates({
      fromZip: q.fromZip ?? '',
      toZip: q.toZip ?? '',
      productCode: q.productCode?.toUpperCase() ?? '',
      pickupDate: q.pickupDate,
    });

  app.get(
    '/v1/schedule/deliverydates',
    {
      // The route's own checks on what the schema accepted, so one 400 names a malformed pickupDate
      // beside an unknown product or postal code (http/domain-rules.ts).
      config: {
        queryRules: rulesOf<Partial<Static<typeof DeliveryDatesQuery>>>(deliveryDates),
      },
      schema: {
        tags,
        summary: 'Earliest and valid desired delivery dates of a route',
        description:
          'The earliest delivery date is the pickup date plus the transit days between the serving terminals of the two postal codes, counted in working days. `DeliveryDates` are the dates `POST /Shipment/Update` accepts as `DeliveryDate` for this pickup date: without `pickupDate` (the earliest pickup date), or with the `PickupDate` of a Direct booking. A booking of another product is planned from the earliest pickup date, so for a later `pickupDate` the dates are a forecast it accepts from that day on. The windows come from the product.',
        querystring: DeliveryDatesQuery,
        response: { 200: DeliveryPlanSchema, ...problemResponses(400), ...authErrors },
      },
    },
    async (request) => deliveryDates(request.query),
  );

  app.get(
    '/v1/schedule/workingdays',
    {
      schema: {
        tags,
        summary: 'Working days of an interval',
        description:
          'Monday to Friday minus the Norwegian public holidays, and minus 24 and 31 December, in `[from, to]`.',
        querystring: WorkingDaysQuery,
        response: { 200: WorkingDaysSchema, ...problemResponses(400), ...authErrors },
      },
    },
    async (request) => schedule.workingDays(request.query.from, request.query.to),
  );
};

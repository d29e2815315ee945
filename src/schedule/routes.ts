import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authErrors, problemResponses } from '../http/schemas';
import { DeliveryDatesQuery, DeliveryPlanSchema, WorkingDaysQuery, WorkingDaysSchema } from './schemas';
import type { ScheduleService } from './service';

const tags = ['Schedule'];

export const scheduleRoutes: FastifyPluginAsyncTypebox<{ schedule: ScheduleService }> = async (
  app,
  { schedule },
) => {
  app.get(
    '/v1/schedule/deliverydates',
    {
      schema: {
        tags,
        summary: 'Earliest and valid desired delivery dates of a route',
        description:
          'The earliest delivery date is the pickup date plus the transit days between the serving terminals of the two postal codes, counted in working days. `DeliveryDates` are the dates `POST /Shipment/Update` accepts as `DeliveryDate`; the windows come from the product.',
        querystring: DeliveryDatesQuery,
        response: { 200: DeliveryPlanSchema, ...problemResponses(400), ...authErrors },
      },
    },
    async (request) => {
      const q = request.query;
      return schedule.deliveryDates({ ...q, productCode: q.productCode.toUpperCase() });
    },
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

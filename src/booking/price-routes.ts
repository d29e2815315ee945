import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authErrors, problemResponses } from '../http/schemas';
import { ShipmentPrice } from './price';
import type { BookingService } from './service';

/** `GET /v2/Shipment/{shipmentid}/price`, read like the shipment (scope `shipments`, same tenancy). */
export const shipmentPriceRoutes: FastifyPluginAsyncTypebox<{ booking: BookingService }> = async (
  app,
  { booking },
) => {
  app.get(
    '/v2/Shipment/:shipmentid/price',
    {
      config: { scope: 'shipments' },
      schema: {
        tags: ['Booking'],
        summary: 'The booked price of a shipment',
        description:
          'A published shipment answers the cost lines frozen when it was published — the lines its invoice carries, to the øre — and their `Total` (`Quote: false`). A shipment not yet published answers what it would cost if published now (`Quote: true`); one that lacks what its price depends on answers 409. Unknown, cancelled and other customers’ shipments are 404.',
        params: Type.Object({ shipmentid: Type.String({ minLength: 1, maxLength: 35 }) }),
        response: { 200: ShipmentPrice, ...problemResponses(404, 409), ...authErrors },
      },
    },
    async (request) => booking.price(request.account, request.params.shipmentid),
  );
};

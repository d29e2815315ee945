import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authErrors, problemResponses } from '../http/schemas';
import type { Idempotency } from './idempotency';
import { requestHash } from './idempotency';
import {
  ShipmentRecord,
  type ShipmentUpdate,
  ShipmentUpdateRequest,
  ShipmentUpdateResponse,
} from './schemas';
import type { BookingService } from './service';

const ShipmentIdParam = Type.Object({ shipmentid: Type.String({ minLength: 1, maxLength: 35 }) });
const tags = ['Booking'];

const EXAMPLE = {
  ShipmentStatus: 'Published',
  CustomerId: '1000',
  ProductCode: '43',
  DeliveryType: 1,
  Services: ['16'],
  SenderReference: 'PO-4711',
  PickupCompanyName: 'Demo Kunde AS',
  PickupAddress: 'Karl Johans gate 1',
  PickupZip: '0154',
  PickupPlace: 'OSLO',
  RecipientCompanyName: 'Fjord Frakt AS',
  RecipientAddress: 'Bryggen 1',
  RecipientZip: '5003',
  RecipientPlace: 'BERGEN',
  RecipientEmail: 'post@fjordfrakt.no',
  Parcels: [{ Weight: 12.5, Length: 60, Width: 40, Height: 30 }],
};

export const bookingRoutes: FastifyPluginAsyncTypebox<{
  booking: BookingService;
  idempotency: Idempotency;
}> = async (app, { booking, idempotency }) => {
  app.post(
    '/Shipment/Update',
    {
      config: {
        scope: 'booking',
        domainRules: (request, body) => booking.violations(request.account, body as ShipmentUpdate),
      },
      schema: {
        tags,
        summary: 'Create or update a shipment',
        description:
          'Creates a shipment (201) or updates an existing one of the caller’s customer (200). Parcels are upserted by `ParcelId`; `Delete: true` removes one. `Published` books the shipment: it is priced, scheduled and final. `Idempotency-Key` makes retries safe; `If-Match` with the ETag of a read guards against lost updates.',
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
          'if-match': Type.Optional(Type.String({ maxLength: 200 })),
        }),
        body: { ...ShipmentUpdateRequest, examples: [EXAMPLE] },
        response: {
          200: ShipmentUpdateResponse,
          201: ShipmentUpdateResponse,
          ...problemResponses(400, 409, 412, 413, 415, 422),
          ...authErrors,
        },
      },
    },
    async (request, reply) => {
      const ifMatch = request.headers['if-match'];
      const key = request.headers['idempotency-key'];
      const send = (status: number, body: unknown, headers: Record<string, string>) =>
        reply
          .code(status as 200)
          .headers(headers)
          .send(body as never);
      const respond = (outcome: Awaited<ReturnType<BookingService['update']>>) => ({
        status: outcome.created ? 201 : 200,
        body: outcome.result,
        headers: { location: `/v2/Shipment/${outcome.result.ShipmentId}`, etag: outcome.etag },
      });
      if (!key) {
        const r = respond(await booking.update(request.account, request.body, { ifMatch }));
        return send(r.status, r.body, r.headers);
      }
      const hash = requestHash({ body: request.body, ifMatch: ifMatch ?? null });
      const result = await idempotency.run(request.account.keyId, key, hash, async (remember) => {
        let stored: ReturnType<typeof respond> | undefined;
        await booking.update(request.account, request.body, {
          ifMatch,
          within: async (tx, outcome) => {
            stored = respond(outcome);
            await remember(tx, stored);
          },
        });
        if (!stored) throw new Error('booking finished without an answer');
        return stored;
      });
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return send(result.status, result.body, result.headers);
    },
  );

  for (const url of ['/v2/Shipment/:shipmentid', '/Shipment/:shipmentid']) {
    app.get(
      url,
      {
        config: { scope: 'shipments' },
        schema: {
          tags,
          summary: url.startsWith('/v2') ? 'Read a shipment' : 'Read a shipment (without version prefix)',
          description: 'One record per parcel. Unknown, cancelled and other customers’ shipments are 404.',
          params: ShipmentIdParam,
          response: { 200: Type.Array(ShipmentRecord), ...problemResponses(404), ...authErrors },
        },
      },
      async (request, reply) => {
        const { records, etag } = await booking.read(request.account, request.params.shipmentid);
        return reply.header('etag', etag).send(records);
      },
    );
  }

  app.delete(
    '/v2/Shipment/:shipmentid',
    {
      config: { scope: 'booking' },
      schema: {
        tags,
        summary: 'Cancel a shipment',
        description: 'Cancels a shipment (also a published one) until its first pickup scan; 409 afterwards.',
        params: ShipmentIdParam,
        response: { 204: Type.Null(), ...problemResponses(404, 409), ...authErrors },
      },
    },
    async (request, reply) => {
      await booking.cancel(request.account, request.params.shipmentid);
      return reply.code(204).send(null);
    },
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { mayScanFor } from '../auth/access';
import { authErrors, Nullable, named, problemResponses } from '../http/schemas';
import type { OperationsService } from './service';
import { SCAN_TYPES } from './service';
import type { Simulator } from './simulator';

const ScanEvent = named(
  'ScanEvent',
  Type.Object({
    EventId: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Chosen by the scanning system; unique.',
    }),
    ParcelId: Type.String({ minLength: 1, maxLength: 35 }),
    EventType: Type.String({ maxLength: 40, description: SCAN_TYPES.join(', ') }),
    Time: Type.String({
      maxLength: 40,
      description: 'Local Oslo time (2026-11-23T10:15:00) or with a zone.',
    }),
    Terminal: Type.Optional(
      Type.String({ maxLength: 10, description: 'A terminal code, as GET /v1/postalcodes/{code} gives it.' }),
    ),
  }),
);

const ScanResult = Type.Object({
  EventId: Type.String(),
  Status: Type.Union([Type.Literal('accepted'), Type.Literal('duplicate'), Type.Literal('rejected')]),
  Errors: Type.Array(Type.String()),
});

const TrackingEvent = Type.Object({
  EventId: Type.String(),
  EventType: Type.String(),
  Time: Type.String(),
  Terminal: Nullable(Type.String()),
});

const Tracking = named(
  'ShipmentEvents',
  Type.Object({
    ShipmentId: Type.String(),
    PickedupDate: Nullable(Type.String()),
    Parcels: Type.Array(Type.Object({ ParcelId: Type.String(), Events: Type.Array(TrackingEvent) })),
  }),
);

const ShipmentIdParam = Type.Object({ shipmentid: Type.String({ minLength: 1, maxLength: 35 }) });
const ParcelIdParam = Type.Object({ parcelId: Type.String({ minLength: 1, maxLength: 35 }) });

export const operationsRoutes: FastifyPluginAsyncTypebox<{
  operations: OperationsService;
  simulator: Simulator | null;
}> = async (app, { operations, simulator }) => {
  app.post(
    '/ops/scans',
    {
      config: { scope: 'ops' },
      schema: {
        tags: ['Carrier operations'],
        summary: 'Record parcel scan events',
        description:
          'Up to 1000 events. Each is judged on its own: `accepted`, `duplicate` (its EventId was seen before, for the same parcel) or `rejected` with reasons, in request order. The first pickup scan sets the shipment’s pickup date and ends the window for cancellation.',
        body: Type.Object({ Events: Type.Array(ScanEvent, { minItems: 1, maxItems: 1000 }) }),
        response: {
          200: Type.Object({ Results: Type.Array(ScanResult) }),
          ...problemResponses(400),
          ...authErrors,
        },
      },
    },
    async (request) => ({
      Results: await operations.recordScans(request.body.Events, (customerNr) =>
        mayScanFor(request.account, customerNr),
      ),
    }),
  );

  app.get(
    '/v1/Shipment/:shipmentid/events',
    {
      config: { scope: 'shipments' },
      schema: {
        tags: ['Tracking'],
        summary: 'Read the scan events of a shipment',
        description: 'Per parcel, ordered by time.',
        params: ShipmentIdParam,
        response: { 200: Tracking, ...problemResponses(404), ...authErrors },
      },
    },
    async (request) => operations.eventsOf(request.account, request.params.shipmentid),
  );

  app.get(
    '/v1/Parcel/:parcelId/events',
    {
      config: { scope: 'shipments' },
      schema: {
        tags: ['Tracking'],
        summary: 'Read the scan events of a parcel, by the number on its label',
        description:
          'The parcel’s shipment in the shape of `GET /v1/Shipment/{shipmentid}/events`, with that parcel alone in `Parcels`. Unknown, cancelled and other customers’ parcels are 404.',
        params: ParcelIdParam,
        response: { 200: Tracking, ...problemResponses(404), ...authErrors },
      },
    },
    async (request) => operations.parcelEventsOf(request.account, request.params.parcelId),
  );

  if (simulator) {
    app.post(
      '/sandbox/shipments/:shipmentid/advance',
      {
        // It changes the shipment (no cancelling after the pickup scan; invoiceable): a booking right.
        config: { scope: 'booking' },
        schema: {
          tags: ['Sandbox'],
          summary: 'Move a published shipment to its next state (sandbox only)',
          description:
            'Generates the scans a carrier would make next — PickedUp, ArrivedAtTerminal, OutForDelivery, Delivered — for every parcel, so listing, invoicing and webhooks can be tried end to end. Not available when NODE_ENV=production.',
          params: ShipmentIdParam,
          response: {
            200: Type.Object({ EventType: Type.String(), Results: Type.Array(ScanResult) }),
            ...problemResponses(404, 409),
            ...authErrors,
          },
        },
      },
      async (request) => simulator.advance(request.account, request.params.shipmentid),
    );
  }
};

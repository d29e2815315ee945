import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { BOOKING_EXAMPLE } from '../http/openapi-examples';
import { authErrors, problemResponses } from '../http/schemas';
import { ValidationFailed } from '../lib/errors';
import type { Idempotency } from './idempotency';
import { requestHash } from './idempotency';
import {
  ShipmentRecord,
  type ShipmentUpdate,
  ShipmentUpdateRequest,
  ShipmentUpdateResponse,
  type ShipmentV2,
  ShipmentV2Request,
} from './schemas';
import type { BookingService } from './service';
import { fromV2 } from './wire-v2';

const ShipmentIdParam = Type.Object({ shipmentid: Type.String({ minLength: 1, maxLength: 35 }) });
const tags = ['Booking'];

// The booking of the document's examples (answers recorded from the server, http/openapi-examples.ts).
const EXAMPLE = BOOKING_EXAMPLE;

/** The same shipment in the v2 body: the address blocks as an `Addresses` list. */
const {
  PickupCompanyName,
  PickupAddress,
  PickupZip,
  PickupPlace,
  RecipientCompanyName,
  RecipientAddress,
  RecipientZip,
  RecipientPlace,
  ...EXAMPLE_COMMON
} = EXAMPLE;
const EXAMPLE_V2 = {
  ...EXAMPLE_COMMON,
  Addresses: [
    {
      AddressTypeId: 1,
      CompanyName: PickupCompanyName,
      Address: PickupAddress,
      Zip: PickupZip,
      Place: PickupPlace,
    },
    {
      AddressTypeId: 2,
      CompanyName: RecipientCompanyName,
      Address: RecipientAddress,
      Zip: RecipientZip,
      Place: RecipientPlace,
    },
  ],
};

export const bookingRoutes: FastifyPluginAsyncTypebox<{
  booking: BookingService;
  idempotency: Idempotency;
}> = async (app, { booking, idempotency }) => {
  /** One handler for the four booking writes: the v1 or v2 wire shape, create-or-update or create only. */
  const book =
    (wire: 'v1' | 'v2', createOnly: boolean, operation: string) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const headers = request.headers as { 'if-match'?: string; 'idempotency-key'?: string };
      const ifMatch = headers['if-match'];
      const key = headers['idempotency-key'];
      // Node joins a repeated header with ", ": two keys would make up a third.
      const keys = request.raw.rawHeaders.filter(
        (h, i) => i % 2 === 0 && h.toLowerCase() === 'idempotency-key',
      );
      if (keys.length > 1)
        throw new ValidationFailed({ 'Idempotency-Key': ['Send one Idempotency-Key header.'] });
      const mapped = wire === 'v2' ? fromV2(request.body as ShipmentV2) : null;
      const command = mapped ? mapped.command : (request.body as ShipmentUpdate);
      const options = { ifMatch, createOnly, violations: mapped?.violations };
      const send = (status: number, body: unknown, headers: Record<string, string>) =>
        reply.code(status).headers(headers).send(body);
      const respond = (outcome: Awaited<ReturnType<BookingService['update']>>) => ({
        status: outcome.created ? 201 : 200,
        body: outcome.result,
        headers: { location: `/v2/Shipment/${outcome.result.ShipmentId}`, etag: outcome.etag },
      });
      try {
        if (!key) {
          const r = respond(await booking.update(request.account, command, options));
          return send(r.status, r.body, r.headers);
        }
        // The operation is part of the request: the same key and body on Book and Update are two requests.
        const hash = requestHash({
          body: request.body,
          ifMatch: ifMatch ?? null,
          ...(operation === '/Shipment/Update' ? {} : { operation }),
        });
        const result = await idempotency.run(request.account.keyId, key, hash, async (remember) => {
          let stored: ReturnType<typeof respond> | undefined;
          await booking.update(request.account, command, {
            ...options,
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
      } catch (e) {
        // The rules name the v1 fields; a v2 client reads the names of its own body.
        if (mapped && e instanceof ValidationFailed)
          throw new ValidationFailed(mapped.renameErrors(e.errors));
        throw e;
      }
    };

  // The booking rules on what the schema accepted, so one 400 lists both (http/domain-rules.ts).
  const rulesV1 = (request: FastifyRequest, body: unknown) =>
    booking.violations(request.account, body as ShipmentUpdate);
  const rulesV2 = async (request: FastifyRequest, body: unknown) => {
    const mapped = fromV2(body as ShipmentV2);
    const errors = await booking.violations(request.account, mapped.command);
    return { ...mapped.violations, ...mapped.renameErrors(errors) };
  };

  const writeHeaders = Type.Object({
    'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    'if-match': Type.Optional(Type.String({ maxLength: 200 })),
  });
  const writeResponses = {
    200: ShipmentUpdateResponse,
    201: ShipmentUpdateResponse,
    ...problemResponses(400, 409, 412, 413, 415, 422),
    ...authErrors,
  };
  const COMMON =
    '`Published` books the shipment: it is priced, scheduled and final. `Idempotency-Key` makes retries safe; `If-Match` with the ETag of a read guards against lost updates.';

  for (const [url, wire, createOnly, summary, description] of [
    [
      '/Shipment/Update',
      'v1',
      false,
      'Create or update a shipment',
      'Creates a shipment (201) or updates an existing one of the caller’s customer (200). Parcels are upserted by `ParcelId`; `Delete: true` removes one.',
    ],
    [
      '/Shipment/Book',
      'v1',
      true,
      'Book a new shipment (v1 body, create only)',
      'The original service’s create path: the body of `POST /Shipment/Update`, but it only creates (201); a `ShipmentId` that already exists is a 409.',
    ],
    [
      '/v2/Shipment/Book',
      'v2',
      true,
      'Book a new shipment (v2 body with Addresses, create only)',
      'The v2 body: the v1 fields with the address blocks as an `Addresses` list (AddressTypeId 1 pickup, 2 recipient, 3 return, 4 pickup point). Only creates (201); a `ShipmentId` that already exists is a 409. Errors name the list element (`Addresses[1].Zip`).',
    ],
    [
      '/v2/Shipment/Update',
      'v2',
      false,
      'Create or update a shipment (v2 body with Addresses)',
      'The v2 body, create (201) or update (200) as `POST /Shipment/Update`: the same rules and the same shipments, so a shipment made through v1 can be updated through v2 and the reverse. The `Addresses` of a read record, sent back unchanged, change nothing. Errors name the list element (`Addresses[1].Zip`).',
    ],
  ] as const) {
    app.post(
      url,
      {
        config: { scope: 'booking', domainRules: wire === 'v1' ? rulesV1 : rulesV2 },
        schema: {
          tags,
          summary,
          description: `${description} ${COMMON}`,
          headers: writeHeaders,
          body:
            wire === 'v1'
              ? { ...ShipmentUpdateRequest, examples: [EXAMPLE] }
              : { ...ShipmentV2Request, examples: [EXAMPLE_V2] },
          response: writeResponses,
        },
      },
      book(wire, createOnly, url),
    );
  }

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

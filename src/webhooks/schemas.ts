import { type Static, Type } from 'typebox';
import { Nullable, named } from '../http/schemas';

const UUID_ERROR = 'The webhookId field must be a UUID, such as 3fa85f64-5717-4562-b3fc-2c963f66afa6.';

export const WebhookIdParams = Type.Object({
  // A pattern, not `format: 'uuid'`: that format also takes the `urn:uuid:` form, which PostgreSQL does not.
  webhookId: Type.String({
    pattern: '^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$',
    'x-error': UUID_ERROR,
    description: 'Id of the webhook.',
  }),
});

/** The spec's webhook record, field for field. */
export const WebhookRecord = named(
  'WebhookRecord',
  Type.Object(
    {
      uuid: Type.String({ format: 'uuid', description: 'Id of the webhook.' }),
      eventValue: Type.String({ description: 'Value the webhook is tied to.' }),
      eventValueType: Type.Integer({
        description: 'Type of eventValue: 1 parcel number, 2 shipment id (GSIN), 3 customer number.',
      }),
      url: Type.String({ description: 'Address the webhook targets (deliveries are POSTed to it).' }),
      customHeaders: Nullable(
        Type.String({
          description: 'A JSON object serialised as a string, holding header names and values.',
        }),
      ),
      secret: Type.String({ description: 'Secret chosen for validation by the owner; keys the signatures.' }),
      expires: Type.String({
        description: 'Expiry, Oslo time with its UTC offset (2027-01-23T10:15:00+01:00).',
      }),
    },
    {
      examples: [
        {
          uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
          eventValue: '1000',
          eventValueType: 3,
          url: 'https://integrator.example/kolli/webhooks',
          customHeaders: '{"X-Api-Key":"abc123"}',
          secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
          expires: '2027-01-23T10:15:00+01:00',
        },
      ],
    },
  ),
);
export type WebhookRecord = Static<typeof WebhookRecord>;

/** Body of `POST /v1/Webhooks` and `PUT /v1/Webhooks/{webhookId}`. */
export const WebhookRequest = named(
  'WebhookRequest',
  Type.Object(
    {
      eventValue: Type.String({
        minLength: 1,
        maxLength: 35,
        description: 'The parcel number, shipment id or customer number the webhook listens to.',
      }),
      eventValueType: Type.Integer({
        description: '1 parcel number (its events and its shipment’s), 2 shipment id, 3 customer number.',
      }),
      url: Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          "An https URL that accepts POST (http only on loopback when KOLLI_WEBHOOK_ALLOW_PRIVATE=1). Its host must resolve (the example's `integrator.example` does not: put your own). Private, loopback, link-local and metadata addresses are refused; redirects are not followed.",
      }),
      secret: Type.String({
        minLength: 1,
        maxLength: 256,
        description:
          'Keys the HMAC-SHA256 signatures: its UTF-8 bytes, or for `whsec_<base64>` the decoded bytes (Standard Webhooks).',
      }),
      customHeaders: Type.Optional(
        Type.Union(
          [Type.String({ maxLength: 30_000 }), Type.Record(Type.String(), Type.Unknown()), Type.Null()],
          {
            description:
              'Headers sent with every delivery: a JSON object of string values serialised as a string (the object itself is accepted too). Reserved: host, content-type, content-length, connection, transfer-encoding, user-agent, hop-by-hop headers and webhook-*.',
            'x-error': 'The customHeaders field must be a JSON object serialised as a string.',
          },
        ),
      ),
      expires: Type.Optional(
        Type.String({
          maxLength: 64,
          description:
            'When the registration stops delivering: ISO 8601 with a UTC offset (without one, Oslo time). Default: two months from now. Must be in the future.',
        }),
      ),
    },
    {
      examples: [
        {
          eventValue: '1000',
          eventValueType: 3,
          url: 'https://integrator.example/kolli/webhooks',
          secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
          customHeaders: '{"X-Api-Key":"abc123"}',
        },
      ],
    },
  ),
);
export type WebhookRequest = Static<typeof WebhookRequest>;

export const WebhookListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1000 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
});

export const DeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
});

const Attempt = Type.Object({
  attempt: Type.Integer({ description: '1 for the first attempt.' }),
  startedAt: Type.String(),
  durationMs: Type.Integer(),
  statusCode: Nullable(Type.Integer({ description: 'The target’s status; null when no answer came.' })),
  error: Nullable(Type.String({ description: 'Connection error, timeout or refusal by the address guard.' })),
  succeeded: Type.Boolean(),
  responseBody: Nullable(Type.String({ description: 'The first 4 KB of the target’s answer.' })),
  nextAttemptAt: Nullable(Type.String({ description: 'When the retry is due; null when none follows.' })),
});

const Delivery = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The `webhook-id` header of every attempt.' }),
  type: Type.String({ description: 'The event type (`shipment.published`, `webhook.test`, …).' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  createdAt: Type.String(),
  nextAttemptAt: Nullable(Type.String({ description: 'When the next attempt is due (pending only).' })),
  completedAt: Nullable(Type.String()),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  payload: Type.String({ description: 'The exact body sent on every attempt.' }),
  attempts: Type.Array(Attempt),
});

export const DeliveriesResponse = Type.Object({
  webhookId: Type.String({ format: 'uuid' }),
  enabled: Type.Boolean({
    description: 'False once disabled (410 Gone, or 5 days of failures); PUT enables.',
  }),
  disabledAt: Nullable(Type.String()),
  disabledReason: Nullable(Type.String()),
  failingSince: Nullable(Type.String({ description: 'Start of the current run of failed attempts.' })),
  deliveries: Type.Array(Delivery, { description: 'Newest first.' }),
});
export type DeliveriesResponse = Static<typeof DeliveriesResponse>;

export const TestResult = Type.Object({
  deliveryId: Type.String({ format: 'uuid', description: 'The `webhook-id` of the test message.' }),
  type: Type.Literal('webhook.test'),
  succeeded: Type.Boolean(),
  statusCode: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  durationMs: Type.Integer(),
  nextAttemptAt: Nullable(
    Type.String({ description: 'When a failed test message is retried; null on success.' }),
  ),
});
export type TestResult = Static<typeof TestResult>;

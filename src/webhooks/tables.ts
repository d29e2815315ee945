import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  smallint,
  text,
  timestamp,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';

/** Webhook registrations (the spec's webhook record plus delivery state). */
export const webhooks = pgTable(
  'webhooks',
  {
    id: uuid('id').primaryKey(),
    /** The customer behind `eventValue`, resolved at registration; deliveries never cross it. */
    customerNr: text('customer_nr').notNull(),
    eventValue: text('event_value').notNull(),
    /** 1 parcel number, 2 shipment id, 3 customer number. */
    eventValueType: smallint('event_value_type').notNull(),
    url: text('url').notNull(),
    /** The JSON object of custom headers, serialised as the record carries it; null when none. */
    customHeaders: text('custom_headers'),
    /** Kept in clear: it keys the HMAC and the spec's record returns it to its owner. */
    secret: text('secret').notNull(),
    expires: timestamp('expires', { withTimezone: true }).notNull(),
    enabled: boolean('enabled').notNull().default(true),
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    disabledReason: text('disabled_reason'),
    /** Start of the current run of failed attempts; null after a success. Five days of it disable. */
    failingSince: timestamp('failing_since', { withTimezone: true }),
    /**
     * The database's time from which the registration hears events: its creation, and again each
     * time a replace makes an expired or disabled registration live (it hears nothing in between).
     */
    listeningSince: timestamp('listening_since', { withTimezone: true }).notNull().defaultNow(),
    createdByKey: text('created_by_key'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // The fan-out's three probes (customer; customer + shipment id; customer + parcel number) and the
  // listing by customer all use this one index.
  (t) => [index('webhooks_match_idx').on(t.customerNr, t.eventValueType, t.eventValue)],
);

/**
 * One message to one registration: an outbox event (exactly once per pair, by the unique key) or a
 * test message. Attempts claim it with a lease; `id` is the stable `webhook-id` header.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey(),
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    /**
     * The outbox event's id, kept as its sequence number: no reference, so the outbox's retention
     * may delete the event while a delivery of it is still retried, and the order stays known.
     */
    eventId: bigint('event_id', { mode: 'number' }),
    /** Ordering key: deliveries of one registration and shipment go out in event order. */
    shipmentId: text('shipment_id'),
    type: text('type').notNull(),
    /** The exact JSON body sent on every attempt. */
    body: text('body').notNull(),
    /** pending | succeeded | failed */
    status: text('status').notNull().default('pending'),
    /** Attempts claimed so far (a claim whose worker died counts too). */
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull(),
    /** While set and in the future, one worker owns the delivery; after it, another may claim it. */
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    leaseOwner: text('lease_owner'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [
    unique('webhook_deliveries_pair_uq').on(t.webhookId, t.eventId),
    // The claim's walk: registrations with pending deliveries, and each one's oldest due delivery,
    // in the claim's own order: a fan-out gives a batch of deliveries one due time, and ordering
    // such ties by a sort had checked every one of them (3 times the claim's cost on PGlite).
    index('webhook_deliveries_due_idx')
      .on(t.webhookId, t.nextAttemptAt, t.eventId.asc().nullsFirst(), t.id)
      .where(sql`${t.status} = 'pending'`),
    // Attempts in flight (few rows: a lease is cleared when its attempt is recorded).
    index('webhook_deliveries_leased_idx').on(t.webhookId).where(sql`${t.leaseUntil} is not null`),
    index('webhook_deliveries_order_idx')
      .on(t.webhookId, t.shipmentId, t.eventId)
      .where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_completed_idx').on(t.completedAt),
    // GET /v1/Webhooks/{id}/deliveries (newest first), and the cascade from a deleted registration.
    index('webhook_deliveries_webhook_created_idx').on(t.webhookId, t.createdAt),
  ],
);

/** Every attempt, for `GET /v1/Webhooks/{id}/deliveries`. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    statusCode: integer('status_code'),
    error: text('error'),
    /** The first bytes of the response body (at most 4 KB are read). */
    responseBody: text('response_body'),
    succeeded: boolean('succeeded').notNull(),
    /** When the next attempt is due; null when none follows. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
  },
  (t) => [
    index('webhook_attempts_webhook_idx').on(t.webhookId, t.id),
    // Attempts of a page of deliveries, and the cascade from a deleted delivery.
    index('webhook_attempts_delivery_idx').on(t.deliveryId),
  ],
);

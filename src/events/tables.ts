import { sql } from 'drizzle-orm';
import { bigint, index, json, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The outbox: one row per domain event, written in the same transaction as the change that caused
 * it (see `emitEvent`). The webhook fan-out reads rows whose `fanned_out_at` is null, in id order.
 */
export const outboxEvents = pgTable(
  'outbox_events',
  {
    /** Ascending; within one shipment it follows commit order (emitEvent serialises per shipment). */
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    /** One of `EVENT_TYPES`. */
    type: text('type').notNull(),
    /** The customer the event belongs to (the shipment's sender customer, the invoice's payer). */
    customerNr: text('customer_nr').notNull(),
    shipmentId: text('shipment_id'),
    /** Parcels the event concerns; for `shipment.*` events every parcel of the shipment. */
    parcelIds: text('parcel_ids').array().notNull().default(sql`'{}'::text[]`),
    invoiceNr: text('invoice_nr'),
    /**
     * The emitter's own facts; the delivered `data` is the columns above, then these (`eventData`).
     * `json` (not `jsonb`) keeps the emitter's key order.
     */
    data: json('data').$type<Record<string, unknown>>().notNull(),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Set when the webhook fan-out has created the deliveries of this event. */
    fannedOutAt: timestamp('fanned_out_at', { withTimezone: true }),
  },
  (t) => [
    index('outbox_events_pending_idx').on(t.id).where(sql`${t.fannedOutAt} is null`),
    index('outbox_events_created_at_idx').on(t.createdAt),
  ],
);

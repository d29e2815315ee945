import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Carrier scan events of parcels (CONTRACT §7). */
export const scanEvents = pgTable(
  'scan_events',
  {
    /** Chosen by the scanning system; a repeated id is a duplicate and ignored. */
    eventId: text('event_id').primaryKey(),
    parcelId: text('parcel_id').notNull(),
    shipmentId: text('shipment_id').notNull(),
    /** PickedUp, ArrivedAtTerminal, OutForDelivery, Delivered, DeliveryFailed, ReturnedToSender. */
    eventType: text('event_type').notNull(),
    time: timestamp('time', { withTimezone: true }).notNull(),
    terminal: text('terminal'),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('scan_events_shipment_time_idx').on(t.shipmentId, t.time)],
);

import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgSequence,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { CustomsLine, FrozenPrice, ShipmentAddresses } from './model';

/**
 * Serials for generated ids: sequences never hand out a number twice, across processes and hosts.
 * Each step reserves a block of SERIAL_BLOCK serials for the process that drew it (store/serials.ts).
 */
export const SERIAL_BLOCK = 1000;
export const shipmentSerial = pgSequence('shipment_serial_seq', {
  startWith: 1,
  increment: SERIAL_BLOCK,
  cache: 1,
});
export const parcelSerial = pgSequence('parcel_serial_seq', {
  startWith: 1,
  increment: SERIAL_BLOCK,
  cache: 1,
});

export const shipments = pgTable(
  'shipments',
  {
    /** The GSIN. */
    id: text('id').primaryKey(),
    customerNr: text('customer_nr').notNull(),
    /** 0 Draft, 1 ReadyForPublish, 2 Published. */
    status: smallint('status').notNull(),
    productCode: text('product_code').notNull(),
    /** 0 Private, 1 Company. */
    deliveryType: smallint('delivery_type').notNull(),
    services: text('services').array().notNull(),
    unitCode: text('unit_code').notNull(),
    commentToCarrier: text('comment_to_carrier'),
    goodsDescription: text('goods_description'),
    senderReference: text('sender_reference'),
    /** Desired dates given by the customer (Europe/Oslo calendar dates). */
    desiredDeliveryDate: date('desired_delivery_date', { mode: 'string' }),
    desiredPickupDate: date('desired_pickup_date', { mode: 'string' }),
    recipientShallPay: boolean('recipient_shall_pay').notNull().default(false),
    /** Customer numbers are text everywhere, as `customer_nr` (the wire's integer becomes its digits). */
    recipientCustomerId: text('recipient_customer_id'),
    /** Extension `PayerCustomerId`: a third party that pays the freight (invoice payer role F). */
    payerCustomerId: text('payer_customer_id'),
    pickupPointId: integer('pickup_point_id'),
    shouldGenerateReturnShipment: boolean('should_generate_return_shipment').notNull().default(false),
    isReturn: boolean('is_return').notNull().default(false),
    /** For a return shipment: the shipment it returns; for an outbound one: its return shipment. */
    returnOf: text('return_of'),
    returnShipmentId: text('return_shipment_id'),
    /** Zip of the pickup address, for the listing index. */
    pickupZip: text('pickup_zip'),
    addresses: jsonb('addresses').$type<ShipmentAddresses>().notNull(),
    customs: jsonb('customs').$type<CustomsLine[]>(),
    /** The planned pickup date (set at publishing) and, once picked up, the first pickup scan's date. */
    pickupDate: date('pickup_date', { mode: 'string' }),
    pickupWindowFrom: text('pickup_window_from'),
    pickupWindowTo: text('pickup_window_to'),
    deliveryDate: date('delivery_date', { mode: 'string' }),
    deliveryWindowFrom: text('delivery_window_from'),
    deliveryWindowTo: text('delivery_window_to'),
    /** The priced cost lines frozen at publishing; tariff changes never rewrite them. */
    price: jsonb('price').$type<FrozenPrice>(),
    pickedUpAt: timestamp('picked_up_at', { withTimezone: true }),
    /** The first Delivered scan of any of its parcels (operations reports it). */
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    publishedAt: timestamp('published_at', { withTimezone: true }),
    cancelledAt: timestamp('cancelled_at', { withTimezone: true }),
    /** When an invoice first carried the shipment (invoicing marks it through booking's service). */
    invoicedAt: timestamp('invoiced_at', { withTimezone: true }),
    /** Increases with every change; the ETag. */
    version: integer('version').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('shipments_listing_idx')
      .on(t.customerNr, t.pickupZip, t.pickupDate, t.id)
      .where(sql`${t.status} = 2 and ${t.cancelledAt} is null`),
    index('shipments_customer_created_idx').on(t.customerNr, t.createdAt),
    index('shipments_invoiceable_idx')
      .on(t.pickupDate)
      .where(sql`${t.status} = 2 and ${t.cancelledAt} is null and ${t.invoicedAt} is null`),
  ],
);

export const parcels = pgTable(
  'parcels',
  {
    shipmentId: text('shipment_id')
      .notNull()
      .references(() => shipments.id, { onDelete: 'cascade' }),
    /** The SSCC, or the customer's own parcel number (1–35 characters). Unique in the whole network. */
    parcelId: text('parcel_id').notNull(),
    /** Order within the shipment. */
    seq: integer('seq').notNull(),
    weightG: integer('weight_g'),
    lengthCm: integer('length_cm'),
    heightCm: integer('height_cm'),
    widthCm: integer('width_cm'),
    volumeCm3: bigint('volume_cm3', { mode: 'number' }),
    /** The parcel's first pickup scan (operations reports it); the split rule reads these. */
    pickedUpAt: timestamp('picked_up_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.shipmentId, t.parcelId] }),
    uniqueIndex('parcels_parcel_id_idx').on(t.parcelId),
  ],
);

/** Replays of `POST /Shipment/Update` by `Idempotency-Key`, per API key, for 24 hours. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    apiKeyId: text('api_key_id').notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    /** Null while the first request is still being processed. */
    responseStatus: smallint('response_status'),
    responseBody: jsonb('response_body'),
    responseHeaders: jsonb('response_headers').$type<Record<string, string>>(),
    /**
     * Random per claim: the request holding the claim writes its answer (or frees the key) only
     * while the token is still its own, so a request that took over a dead claim is never undone.
     */
    claimToken: text('claim_token').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.key] }),
    index('idempotency_keys_created_idx').on(t.createdAt),
  ],
);

import { jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** A customer's price agreement; pricing reads it (freight discount, special unit codes). */
export interface Agreement {
  /** Discount on net freight in percent (0–100). */
  FreightDiscountPercent?: number;
  /** Special unit codes `51`..`99` the customer may use. */
  SpecialUnitCodes?: string[];
}

export interface PostalAddress {
  Address?: string;
  Address2?: string;
  Zip?: string;
  Place?: string;
  Country?: string;
}

export const customers = pgTable('customers', {
  /** The carrier customer number: a string of digits (`"1000"`). */
  customerNr: text('customer_nr').primaryKey(),
  name: text('name').notNull(),
  orgNr: text('org_nr'),
  address: jsonb('address').$type<PostalAddress>(),
  agreement: jsonb('agreement').$type<Agreement>().notNull().default({}),
  /** Id for the international price service (`/v2/europe/price` `CustomerId`); not the customer number. */
  priceServiceId: text('price_service_id').notNull().unique(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

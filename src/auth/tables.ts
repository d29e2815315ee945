import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const apiKeys = pgTable(
  'api_keys',
  {
    /** Public id of the key (also the OAuth2 `username`/`client_id`). */
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** SHA-256 of the secret key; the key itself is never stored. */
    keyHash: text('key_hash').notNull().unique(),
    scopes: text('scopes').array().notNull(),
    /** Customer numbers the key may act for; admin keys act for all. */
    customerNrs: text('customer_nrs').array().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [index('api_keys_created_at_idx').on(t.createdAt)],
);

/** Installation-wide values every process must agree on (e.g. the access-token signing secret). */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

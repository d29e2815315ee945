import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Installation-wide values every process must agree on (e.g. the access-token signing secret). */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

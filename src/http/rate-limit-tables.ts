import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The fleet's shared rate-limit counters, in the shape `rate-limiter-flexible`'s Drizzle store
 * reads and writes (one row per key and window; `expire` ends the window).
 */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  points: integer('points').notNull().default(0),
  expire: timestamp('expire', { withTimezone: true }),
});

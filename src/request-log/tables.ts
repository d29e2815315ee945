import { bigint, index, integer, pgTable, real, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The request log: one row per request made with a customer's key or token, for the integrator's
 * "what did my integration send, and why was it refused?". Bodies are capped and redacted before
 * they are written (see redact.ts); rows are pruned by age and by count per key (prune job).
 */
export const requestLog = pgTable(
  'request_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamp('at', { withTimezone: true }).notNull(),
    keyId: text('key_id').notNull(),
    /** The customer numbers the key acts for when the request was made: the tenancy of the row. */
    customerNrs: text('customer_nrs').array().notNull(),
    /**
     * The scopes of the key that made the request: another key of the customer sees the row only
     * when it holds every one of them, so the log never shows what the viewer's scopes forbid.
     * Null on rows from before it was kept: those only their own key sees.
     */
    scopes: text('scopes').array(),
    method: text('method').notNull(),
    /** Path and query, as sent, with secret query parameters redacted. */
    url: text('url').notNull(),
    status: integer('status').notNull(),
    durationMs: real('duration_ms').notNull(),
    requestId: text('request_id').notNull(),
    requestContentType: text('request_content_type'),
    requestBody: text('request_body'),
    responseContentType: text('response_content_type'),
    responseBody: text('response_body'),
  },
  (t) => [
    index('request_log_key_id_idx').on(t.keyId, t.id),
    index('request_log_at_idx').on(t.at),
    index('request_log_customer_nrs_idx').using('gin', t.customerNrs),
  ],
);

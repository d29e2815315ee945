import { bigint, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The administration's audit trail: one row per change requested through the admin API (a
 * POST, PUT, PATCH or DELETE of an `admin`-scope route that reached its handler), written before the
 * change and settled with its outcome. A row whose `status` is null is a change whose outcome was
 * never recorded (the process stopped mid-request). No bodies: they may hold keys and secrets.
 */
export const adminAudit = pgTable(
  'admin_audit',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamp('at', { withTimezone: true }).notNull(),
    keyId: text('key_id').notNull(),
    keyName: text('key_name').notNull(),
    method: text('method').notNull(),
    /** The route as declared (`/admin/customers/:customerNr`). */
    route: text('route').notNull(),
    /** The path as sent, without the query. */
    path: text('path').notNull(),
    /** The route's path parameters: what was changed (`{"customerNr": "1000"}`). */
    params: jsonb('params').$type<Record<string, string>>().notNull(),
    requestId: text('request_id').notNull(),
    status: integer('status'),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (t) => [index('admin_audit_at_idx').on(t.at), index('admin_audit_key_id_idx').on(t.keyId, t.id)],
);

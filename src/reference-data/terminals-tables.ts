import { doublePrecision, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/** Carrier terminals (`data/terminals.csv`). */
export const terminals = pgTable('terminals', {
  code: text('code').primaryKey(),
  name: text('name').notNull(),
  place: text('place').notNull(),
  lat: doublePrecision('lat').notNull(),
  lon: doublePrecision('lon').notNull(),
});

/** Transit time in working days for every ordered terminal pair (`data/transit-days.csv`). */
export const transitDays = pgTable(
  'transit_days',
  {
    fromTerminal: text('from_terminal').notNull(),
    toTerminal: text('to_terminal').notNull(),
    days: integer('days').notNull(),
    /** Why: the distance band or the documented exception that gave `days`. */
    basis: text('basis').notNull(),
  },
  (t) => [primaryKey({ columns: [t.fromTerminal, t.toTerminal] })],
);

/** Postal codes served by another terminal than the nearest one (`data/terminal-overrides.csv`). */
export const terminalOverrides = pgTable('terminal_overrides', {
  postalCode: text('postal_code').primaryKey(),
  terminal: text('terminal').notNull(),
  reason: text('reason').notNull(),
});

import { doublePrecision, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** The Norwegian postal register (Posten Bring), with coordinates and the serving terminal. */
export const postalCodes = pgTable(
  'postal_codes',
  {
    postalCode: text('postal_code').primaryKey(),
    place: text('place').notNull(),
    municipalityCode: text('municipality_code').notNull(),
    municipality: text('municipality').notNull(),
    countyCode: text('county_code').notNull(),
    county: text('county').notNull(),
    /** Bring's category: G street, P PO box, B both, S service, F several uses. */
    category: text('category').notNull(),
    lat: doublePrecision('lat'),
    lon: doublePrecision('lon'),
    /** Code of the terminal serving the code; assigned by the routing data. */
    terminal: text('terminal'),
  },
  (t) => [index('postal_codes_place_idx').on(t.place)],
);

/** Which version (content hash) of each shipped reference file is loaded, so a restart reloads only changes. */
export const referenceDataLoads = pgTable('reference_data_loads', {
  name: text('name').primaryKey(),
  sha256: text('sha256').notNull(),
  loadedAt: timestamp('loaded_at', { withTimezone: true }).notNull().defaultNow(),
});

import { boolean, doublePrecision, index, integer, pgTable, text } from 'drizzle-orm/pg-core';

/**
 * Pickup points (parcel shops and lockers) where recipients collect parcels: the shipped sandbox set
 * (`data/pickup-points-sandbox.csv`) or a real list imported through `PUT /admin/pickup-points`.
 */
export const pickupPoints = pgTable(
  'pickup_points',
  {
    /** The `PickupPointId` of a booking. */
    id: integer('id').primaryKey(),
    name: text('name').notNull(),
    address: text('address').notNull(),
    postalCode: text('postal_code').notNull(),
    place: text('place').notNull(),
    lat: doublePrecision('lat').notNull(),
    lon: doublePrecision('lon').notNull(),
    /** Opening hours in the OpenStreetMap `opening_hours` syntax (`Mo-Fr 08:00-21:00; Sa 09:00-18:00`). */
    openingHours: text('opening_hours').notNull(),
    /** True for the generated sandbox points, which are not real places. */
    sandbox: boolean('sandbox').notNull(),
  },
  (t) => [index('pickup_points_postal_code_idx').on(t.postalCode)],
);

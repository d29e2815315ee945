import { type Static, Type } from 'typebox';
import { Nullable, named, STRICT } from '../http/schemas';
import { INT32_MAX } from '../lib/int32';

const OpeningHours = Type.String({
  minLength: 1,
  maxLength: 500,
  description:
    'Opening hours in the OpenStreetMap `opening_hours` syntax, e.g. `Mo-Fr 08:00-21:00; Sa 09:00-18:00`.',
});

export const PickupPointSchema = named(
  'PickupPoint',
  Type.Object({
    Id: Type.Integer({ description: 'The `PickupPointId` to book with.' }),
    Name: Type.String(),
    Address: Type.String(),
    Zip: Type.String(),
    Place: Type.String(),
    Latitude: Type.Number(),
    Longitude: Type.Number(),
    DistanceKm: Nullable(
      Type.Number({
        description:
          'Great-circle distance from the requested postal code in kilometres (2 decimals); null when read by id.',
      }),
    ),
    OpeningHours,
    Sandbox: Type.Boolean({
      description: 'True for the generated sandbox points, which are not real places.',
    }),
  }),
);

export const NearestQuery = Type.Object({
  postalCode: Type.String({
    pattern: '^[0-9]{4}$',
    'x-error': 'The postalCode field must be a Norwegian postal code of 4 digits.',
  }),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 10,
      'x-error': 'The limit field must be a whole number from 1 to 100.',
      description: 'How many points, 1 to 100 (default 10).',
    }),
  ),
});

export const PickupPointImportSchema = Type.Object(
  {
    PickupPoints: Type.Array(
      Type.Object(
        {
          Id: Type.Integer({ minimum: 1, maximum: INT32_MAX }),
          Name: Type.String({ minLength: 1, maxLength: 200 }),
          Address: Type.String({ minLength: 1, maxLength: 200 }),
          Zip: Type.String({ pattern: '^[0-9]{4}$', 'x-error': 'A postal code is 4 digits.' }),
          Place: Type.String({ minLength: 1, maxLength: 100 }),
          Latitude: Type.Number({
            minimum: 57,
            maximum: 81.5,
            description: 'WGS84, within Norway and Svalbard.',
          }),
          Longitude: Type.Number({
            minimum: -10,
            maximum: 35,
            description: 'WGS84, within Norway and Svalbard.',
          }),
          OpeningHours,
        },
        STRICT,
      ),
      { minItems: 1, maxItems: 50_000 },
    ),
  },
  STRICT,
);

export type PickupPointView = Static<typeof PickupPointSchema>;
export type PickupPointImport = Static<typeof PickupPointImportSchema>;

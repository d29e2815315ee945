import { type Static, Type } from 'typebox';
import { named, STRICT } from '../http/schemas';

const Time = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  'x-error': 'A time is HH:mm (00:00 to 23:59).',
});

export const TimeWindowSchema = Type.Object(
  { From: Time, To: Time },
  { ...STRICT, description: 'Local Oslo time window, `HH:mm`.' },
);

/** Booking request field names a service can require (the recipient fields it needs to work). */
export const REQUIRABLE_FIELDS = [
  'RecipientEmail',
  'RecipientPhone',
  'DeliveryDate',
  'PickupDate',
  'PickupPointId',
  'RecipientCompanyName',
] as const;

const ServiceCode = Type.String({
  pattern: '^[0-9A-Z]{1,4}$',
  'x-error': 'A service code is 1 to 4 digits or capital letters.',
});
const ProductCode = Type.String({
  pattern: '^[0-9A-Z]{1,4}$',
  'x-error': 'A product code is 1 to 4 digits or capital letters.',
});

export const ServiceDefSchema = named(
  'Service',
  Type.Object(
    {
      ServiceCode,
      Name: Type.String({ minLength: 1, maxLength: 100 }),
      PriceBasis: Type.Union([Type.Literal('shipment'), Type.Literal('parcel')], {
        description: 'Whether the service is priced once per shipment or once per parcel.',
      }),
      RequiredFields: Type.Array(Type.Union(REQUIRABLE_FIELDS.map((f) => Type.Literal(f))), {
        maxItems: REQUIRABLE_FIELDS.length,
        uniqueItems: true,
        description: 'Booking request fields that must be given when the service is used.',
      }),
    },
    {
      ...STRICT,
      examples: [
        {
          ServiceCode: '16',
          Name: 'Pre-notice e-mail',
          PriceBasis: 'shipment',
          RequiredFields: ['RecipientEmail'],
        },
      ],
    },
  ),
);

const Kg = (description: string) => Type.Number({ exclusiveMinimum: 0, maximum: 100_000, description });
const Cm = (description: string) => Type.Integer({ minimum: 1, maximum: 2000, description });

export const ProductSchema = named(
  'Product',
  Type.Object(
    {
      ProductCode,
      Name: Type.String({ minLength: 1, maxLength: 100 }),
      Segment: Type.Union([Type.Literal('B2B'), Type.Literal('B2C')]),
      UnitCodes: Type.Array(Type.Union([Type.Literal('KL'), Type.Literal('PL')]), {
        minItems: 1,
        maxItems: 2,
        uniqueItems: true,
        description:
          'Standard unit codes the product takes; special codes 51–99 come from customer agreements.',
      }),
      Services: Type.Array(ServiceCode, {
        maxItems: 100,
        uniqueItems: true,
        description: 'Service codes allowed with the product.',
      }),
      MaxParcelWeightKg: Kg('Maximum weight of one parcel (or pallet).'),
      MaxShipmentWeightKg: Kg('Maximum total weight of a shipment.'),
      MaxLengthCm: Cm('Maximum parcel length.'),
      MaxWidthCm: Cm('Maximum parcel width.'),
      MaxHeightCm: Cm('Maximum parcel height.'),
      VolumeFactorKgPerDm3: Type.Number({
        exclusiveMinimum: 0,
        maximum: 10,
        description: 'Kilograms charged per cubic decimetre (litre) of volume, for the chargeable weight.',
      }),
      International: Type.Boolean({ description: 'Valid for `GET /v2/europe/price`.' }),
      PickupPoints: Type.Boolean({ description: 'Delivers to pickup points.' }),
      AllowsPickupDate: Type.Boolean({ description: 'A desired `PickupDate` may be booked (Direct only).' }),
      AllowsReturnShipment: Type.Boolean({
        description: '`ShouldGenerateReturnShipment` is allowed (HE, HJ).',
      }),
      PickupWindow: TimeWindowSchema,
      DeliveryWindow: TimeWindowSchema,
    },
    {
      ...STRICT,
      examples: [
        {
          ProductCode: '43',
          Name: 'System',
          Segment: 'B2B',
          UnitCodes: ['KL', 'PL'],
          Services: ['11', '12', '15', '16', '17', '35', '41'],
          MaxParcelWeightKg: 1000,
          MaxShipmentWeightKg: 20000,
          MaxLengthCm: 400,
          MaxWidthCm: 240,
          MaxHeightCm: 220,
          VolumeFactorKgPerDm3: 0.333,
          International: false,
          PickupPoints: false,
          AllowsPickupDate: false,
          AllowsReturnShipment: false,
          PickupWindow: { From: '08:00', To: '16:00' },
          DeliveryWindow: { From: '08:00', To: '16:00' },
        },
      ],
    },
  ),
);

/** The whole catalogue: the shipped `data/catalog/catalog.json` and the body of `PUT /admin/catalog`. */
export const CatalogSchema = Type.Object(
  {
    Services: Type.Array(ServiceDefSchema, { minItems: 1, maxItems: 500 }),
    Products: Type.Array(ProductSchema, { minItems: 1, maxItems: 500 }),
  },
  STRICT,
);

export type Product = Static<typeof ProductSchema>;
export type ServiceDef = Static<typeof ServiceDefSchema>;
export type Catalog = Static<typeof CatalogSchema>;
export type TimeWindow = Static<typeof TimeWindowSchema>;
export type RequirableField = (typeof REQUIRABLE_FIELDS)[number];

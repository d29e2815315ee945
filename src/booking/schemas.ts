import { type Static, Type } from 'typebox';
import { Nullable } from '../http/schemas';

const Str = (max: number, description?: string) =>
  Type.String({ maxLength: max, ...(description ? { description } : {}) });

/** A datetime without zone (Europe/Oslo) or a bare date, per CONTRACT §2. */
export const LocalDateTime = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,7})?)?)?$',
  'x-error': 'Give a date (2026-11-23) or a local date and time (2026-11-23T10:00:00).',
});

const Phone = Type.String({
  pattern: '^\\+?[0-9][0-9 ()-]{3,28}$',
  'x-error': 'A phone number is 4 to 30 digits, optionally with +, spaces, dashes or parentheses.',
});
const Email = Type.String({ format: 'email', maxLength: 254, 'x-error': 'Give a valid e-mail address.' });
const Country = Type.String({
  pattern: '^[A-Za-z]{2}$',
  'x-error': 'A country is a 2-letter ISO 3166-1 code.',
});

const optional = <T extends Parameters<typeof Type.Optional>[0]>(schema: T) => Type.Optional(schema);
type Opt = ReturnType<typeof optional<ReturnType<typeof Type.String>>>;
type BlockField =
  | 'CompanyName'
  | 'FirstName'
  | 'LastName'
  | 'Address'
  | 'Address2'
  | 'Zip'
  | 'Place'
  | 'County';
type ContactField = 'Phone' | 'Email' | 'Country';

/** The fields of one address block, prefixed as the spec names them (`RecipientZip`). */
function addressBlock<P extends string>(prefix: P): { [K in `${P}${BlockField | ContactField}`]: Opt } {
  const fields = {
    CompanyName: Str(100),
    FirstName: Str(100),
    LastName: Str(100),
    Address: Str(100),
    Address2: Str(100),
    Zip: Type.String({ minLength: 1, maxLength: 10 }),
    Place: Str(100),
    County: Str(100),
    Phone,
    Email,
    Country,
  };
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [`${prefix}${k}`, optional(v)])) as {
    [K in `${P}${BlockField | ContactField}`]: Opt;
  };
}

/** The pickup point block has no names, phone, e-mail or country (pickup points are in Norway). */
function pickupPointBlock() {
  const {
    PickupPointCompanyName,
    PickupPointAddress,
    PickupPointAddress2,
    PickupPointZip,
    PickupPointPlace,
    PickupPointCounty,
  } = addressBlock('PickupPoint');
  return {
    PickupPointCompanyName,
    PickupPointAddress,
    PickupPointAddress2,
    PickupPointZip,
    PickupPointPlace,
    PickupPointCounty,
  };
}

export const ParcelDetails = Type.Object({
  ParcelId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 35, description: 'Known id: update; absent or unknown: add.' }),
  ),
  Delete: Type.Optional(Type.Boolean({ description: '`true` removes the parcel with this ParcelId.' })),
  Weight: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100_000, description: 'Kilograms.' })),
  Length: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'Centimetres.' })),
  Height: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'Centimetres.' })),
  Width: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'Centimetres.' })),
  Volume: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, maximum: 10_000_000, description: 'Cubic decimetres (litres).' }),
  ),
});

export const CustomsLineSchema = Type.Object({
  CountryOfOrigin: Type.Optional(Country),
  GrossWeight: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, maximum: 100_000, description: 'Kilograms.' }),
  ),
  NetWeight: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100_000, description: 'Kilograms.' })),
  GoodsDescription: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  HsCode: Type.Optional(
    Type.String({ pattern: '^[0-9]{6,10}$', 'x-error': 'An HS code is 6 to 10 digits.' }),
  ),
  GoodsValue: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000_000 })),
  CurrencyType: Type.Optional(
    Type.String({ pattern: '^[A-Za-z]{3}$', 'x-error': 'A currency is a 3-letter ISO 4217 code.' }),
  ),
  Quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
});

export const ShipmentUpdateRequest = Type.Object(
  {
    Parcels: Type.Array(ParcelDetails, { maxItems: 999 }),
    ShipmentStatus: Type.Union([Type.Integer(), Type.String({ maxLength: 20 })], {
      description: '`Draft` (0), `ReadyForPublish` (1) or `Published` (2), by name or number.',
    }),
    CustomerId: Type.String({
      pattern: '^[0-9]{1,10}$',
      'x-error': 'The CustomerId field must be a customer number (digits).',
    }),
    ShipmentId: Type.Optional(Type.String({ maxLength: 35, description: 'A GSIN; generated when absent.' })),
    ProductCode: Type.String({ minLength: 1, maxLength: 10 }),
    DeliveryType: Type.Union([Type.Integer(), Type.String({ maxLength: 10 })], {
      description: '`0` Private or `1` Company, by number or name.',
    }),
    Services: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 10 }), { maxItems: 30 })),
    CommentToCarrier: Type.Optional(Str(500)),
    GoodsDescription: Type.Optional(Str(500)),
    DeliveryDate: Type.Optional(LocalDateTime),
    PickupDate: Type.Optional(LocalDateTime),
    UnitCode: Type.Optional(Type.String({ maxLength: 2 })),
    RecipientShallPay: Type.Optional(Type.Boolean()),
    RecipientCustomerId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
    PayerCustomerId: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2_147_483_647,
        description:
          'Extension: a third party that pays the freight (invoice payer role `F`). The key must be able to act for it. Not with `RecipientShallPay`.',
      }),
    ),
    SenderReference: Type.Optional(
      Str(35, 'Printed in full on the label; 15 characters show on the invoice.'),
    ),
    PickupPointId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
    ShouldGenerateReturnShipment: Type.Optional(Type.Boolean()),
    CustomsInformation: Type.Optional(
      Type.Object({ Lines: Type.Array(CustomsLineSchema, { maxItems: 999 }) }),
    ),
    ...addressBlock('Pickup'),
    ...addressBlock('Recipient'),
    ...addressBlock('Return'),
    ...pickupPointBlock(),
  },
  { description: 'Create or update a shipment of up to 999 parcels.' },
);
export type ShipmentUpdate = Static<typeof ShipmentUpdateRequest>;

export const ShipmentUpdateResponse = Type.Object({
  ShipmentId: Type.String(),
  ShipmentStatus: Type.Integer(),
  ParcelIds: Type.Array(Type.String()),
  ReturnShipmentId: Nullable(Type.String()),
});
export type ShipmentUpdateResult = Static<typeof ShipmentUpdateResponse>;

const NStr = Nullable(Type.String());
const NInt = Nullable(Type.Integer());
const NNum = Nullable(Type.Number());

export const AddressRecord = Type.Object({
  AddressTypeId: Type.Integer({ description: '1 pickup, 2 recipient, 3 return, 4 pickup point.' }),
  FirstName: NStr,
  LastName: NStr,
  CompanyName: NStr,
  Address: NStr,
  Address2: NStr,
  Zip: NStr,
  Place: NStr,
  County: NStr,
  Country: NStr,
});

export const ReferenceRecord = Type.Object({
  ReferenceTypeId: Type.Integer({ description: '1 sender reference.' }),
  ReferenceLevel: Type.Integer({ description: '1 shipment, 2 parcel.' }),
  ReferenceText: NStr,
});

export const ShipmentRecord = Type.Object({
  ParcelStatus: Type.Integer({ description: '0 Draft, 1 ReadyForPublish, 2 Published.' }),
  CustomerId: Type.String(),
  ParcelId: Type.String(),
  IsReturn: Type.Boolean(),
  Weight: NNum,
  Length: NInt,
  Height: NInt,
  Width: NInt,
  Volume: NNum,
  Addresses: Type.Array(AddressRecord),
  PickupPhone: NStr,
  PickupEmail: NStr,
  RecipientPhone: NStr,
  RecipientEmail: NStr,
  ReturnPhone: NStr,
  ReturnEmail: NStr,
  PickupPointId: NInt,
  DeliveryDate: NStr,
  DeliveryDateTo: NStr,
  PickupDate: NStr,
  PickupDateTo: NStr,
  ProductCode: Type.String(),
  Services: Type.Array(Type.String()),
  DeliveryType: Type.Integer(),
  CommentToCarrier: NStr,
  GoodsDescription: NStr,
  ShipmentId: Type.String(),
  UnitCode: Type.String(),
  RecipientShallPay: Type.Boolean(),
  RecipientCustomerId: NInt,
  References: Type.Array(ReferenceRecord),
  LoadingMeters: Type.Number(),
  PalletSpaces: Type.Integer(),
});
export type ShipmentRecordT = Static<typeof ShipmentRecord>;

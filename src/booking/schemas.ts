import { type Static, Type } from 'typebox';
import { EMPTY_ABSENT, OSLO_DATETIME, ZERO_ABSENT } from '../http/binding';
import { Nullable, named } from '../http/schemas';
import { INT32_MAX } from '../lib/int32';

/** An optional id or measure where `0` means "not given" (see http/binding.ts). */
const ZERO = { [ZERO_ABSENT]: true } as const;
/**
 * An optional text where `""` (or only spaces) means "not given" (see http/binding.ts): what a .NET or
 * Java client sends for a string it left unset, read back as `null` (CONTRACT §2).
 */
const EMPTY = { [EMPTY_ABSENT]: true } as const;
const CM = 'Centimetres; `0` = not given.';

const Str = (max: number, description?: string) =>
  Type.String({ maxLength: max, ...EMPTY, ...(description ? { description } : {}) });

/** A datetime without zone (Europe/Oslo) or a bare date, per CONTRACT §2. */
export const LocalDateTime = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,7})?)?)?$',
  'x-error': 'Give a date (2026-11-23) or a local date and time (2026-11-23T10:00:00).',
  // With `Z` or an offset, the binder converts it to Oslo local time first.
  [OSLO_DATETIME]: true,
  ...EMPTY,
});

const Phone = Type.String({
  pattern: '^\\+?[0-9][0-9 ()-]{3,28}$',
  'x-error': 'A phone number is 4 to 30 digits, optionally with +, spaces, dashes or parentheses.',
  ...EMPTY,
});
const Email = Type.String({
  format: 'email',
  maxLength: 254,
  'x-error': 'Give a valid e-mail address.',
  ...EMPTY,
});
const Country = Type.String({
  pattern: '^[A-Za-z]{2}$',
  'x-error': 'A country is a 2-letter ISO 3166-1 code.',
  ...EMPTY,
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
    Zip: Type.String({ maxLength: 10, ...EMPTY }),
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
    Type.String({
      minLength: 1,
      maxLength: 35,
      // It is scanned, printed and sent in events: not blank, and only what its Code 128 barcode
      // carries (ISO 8859-1 without control characters: Æ Ø Å yes, emoji no).
      pattern: '^[\\u0020-\\u007E\\u00A0-\\u00FF]+$',
      'x-error':
        'A ParcelId is 1 to 35 characters of ISO 8859-1 (what its Code 128 barcode carries: letters such as Æ Ø Å, no emoji), without control characters.',
      description: 'Known id: update; absent (or empty) or unknown: add.',
      ...EMPTY,
    }),
  ),
  Delete: Type.Optional(Type.Boolean({ description: '`true` removes the parcel with this ParcelId.' })),
  // Stored in whole grams (cm³ below): a smaller measure would be kept as 0.
  // `0` too: a .NET client's unset decimal, "not given" until the publish rule asks for a weight.
  Weight: Type.Optional(
    Type.Number({
      minimum: 0.001,
      maximum: 100_000,
      description: 'Kilograms, at least 0.001 (1 g); `0` = not given (a publish needs a weight above 0).',
      ...ZERO,
    }),
  ),
  // `0` is a .NET client's unset int: "not given" (CONTRACT §2).
  Length: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: CM, ...ZERO })),
  Height: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: CM, ...ZERO })),
  Width: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: CM, ...ZERO })),
  Volume: Type.Optional(
    Type.Number({
      minimum: 0.001,
      maximum: 10_000_000,
      description: 'Cubic decimetres (litres), at least 0.001 (1 cm³); `0` = not given.',
      ...ZERO,
    }),
  ),
});

export const CustomsLineSchema = Type.Object({
  CountryOfOrigin: Type.Optional(Country),
  GrossWeight: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, maximum: 100_000, description: 'Kilograms.' }),
  ),
  NetWeight: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100_000, description: 'Kilograms.' })),
  GoodsDescription: Type.Optional(Type.String({ maxLength: 500, ...EMPTY })),
  HsCode: Type.Optional(
    Type.String({ pattern: '^[0-9]{6,10}$', 'x-error': 'An HS code is 6 to 10 digits.', ...EMPTY }),
  ),
  GoodsValue: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000_000 })),
  CurrencyType: Type.Optional(
    Type.String({ pattern: '^[A-Za-z]{3}$', 'x-error': 'A currency is a 3-letter ISO 4217 code.', ...EMPTY }),
  ),
  Quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
});

/** The fields of a booking request other than its addresses: one set for the v1 and the v2 body. */
const commandFields = {
  Parcels: Type.Array(ParcelDetails, { maxItems: 999 }),
  ShipmentStatus: Type.Union([Type.Integer(), Type.String({ maxLength: 20 })], {
    description: '`Draft` (0), `ReadyForPublish` (1) or `Published` (2), by name or number.',
  }),
  CustomerId: Type.String({
    pattern: '^[0-9]{1,10}$',
    'x-error': 'The CustomerId field must be a customer number (digits).',
  }),
  ShipmentId: Type.Optional(
    Type.String({ maxLength: 35, description: 'A GSIN; generated when absent (or empty).', ...EMPTY }),
  ),
  ProductCode: Type.String({ minLength: 1, maxLength: 10 }),
  DeliveryType: Type.Union([Type.Integer(), Type.String({ maxLength: 10 })], {
    description: '`0` Private or `1` Company, by number or name.',
  }),
  Services: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 10 }), { maxItems: 30 })),
  CommentToCarrier: Type.Optional(Str(500)),
  GoodsDescription: Type.Optional(Str(500)),
  DeliveryDate: Type.Optional(LocalDateTime),
  PickupDate: Type.Optional(LocalDateTime),
  UnitCode: Type.Optional(Type.String({ maxLength: 2, ...EMPTY })),
  RecipientShallPay: Type.Optional(Type.Boolean()),
  RecipientCustomerId: Type.Optional(Type.Integer({ minimum: 1, maximum: INT32_MAX, ...ZERO })),
  PayerCustomerId: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: INT32_MAX,
      ...ZERO,
      description:
        'Extension: a third party that pays the freight (invoice payer role `F`). The key must be able to act for it. Not with `RecipientShallPay`.',
    }),
  ),
  SenderReference: Type.Optional(Str(35, 'Printed in full on the label; 15 characters show on the invoice.')),
  PickupPointId: Type.Optional(Type.Integer({ minimum: 1, maximum: INT32_MAX, ...ZERO })),
  ShouldGenerateReturnShipment: Type.Optional(Type.Boolean()),
  // `Lines` is optional as the spec has it: a client that always sends the block (`{}`, `{"Lines":
  // null}`) books domestic shipments; abroad, the rules ask for a line (`checkCustoms`).
  CustomsInformation: Type.Optional(
    Type.Object({ Lines: Type.Optional(Type.Array(CustomsLineSchema, { maxItems: 999 })) }),
  ),
};

export const ShipmentUpdateRequest = named(
  'ShipmentUpdateRequest',
  Type.Object(
    {
      ...commandFields,
      ...addressBlock('Pickup'),
      ...addressBlock('Recipient'),
      ...addressBlock('Return'),
      ...pickupPointBlock(),
    },
    { description: 'Create or update a shipment of up to 999 parcels.' },
  ),
);
export type ShipmentUpdate = Static<typeof ShipmentUpdateRequest>;

/** One element of the v2 body's `Addresses`: the read record's `Address` shape (CONTRACT §14). */
export const AddressV2 = Type.Object({
  AddressTypeId: Type.Integer({
    minimum: 1,
    maximum: 4,
    description: '1 pickup, 2 recipient, 3 return, 4 pickup point; each at most once.',
  }),
  CompanyName: Type.Optional(Str(100)),
  FirstName: Type.Optional(Str(100)),
  LastName: Type.Optional(Str(100)),
  Address: Type.Optional(Str(100)),
  Address2: Type.Optional(Str(100)),
  Zip: Type.Optional(Type.String({ maxLength: 10, ...EMPTY })),
  Place: Type.Optional(Str(100)),
  County: Type.Optional(Str(100)),
  Country: Type.Optional(Country),
});
export type AddressV2T = Static<typeof AddressV2>;

const { PickupPhone, PickupEmail } = addressBlock('Pickup');
const { RecipientPhone, RecipientEmail } = addressBlock('Recipient');
const { ReturnPhone, ReturnEmail } = addressBlock('Return');

/**
 * The v2 body of `POST /v2/Shipment/Book` and `/v2/Shipment/Update`: the v1 body with its flat
 * address blocks replaced by `Addresses`; the contact fields stay top-level. `wire-v2.ts` maps it
 * to the v1 command, so both run the same rules against the same store.
 */
export const ShipmentV2Request = named(
  'ShipmentUpdateRequestV2',
  Type.Object(
    {
      ...commandFields,
      Addresses: Type.Array(AddressV2, {
        maxItems: 4,
        description:
          'The pickup (1), recipient (2), return (3) and pickup point (4) addresses, each type at most once. `ReadyForPublish` and `Published` need types 1 and 2 with a name, address line, zip and place.',
      }),
      PickupPhone,
      PickupEmail,
      RecipientPhone,
      RecipientEmail,
      ReturnPhone,
      ReturnEmail,
    },
    {
      description: 'Create or update a shipment of up to 999 parcels (the v2 body, with an Addresses list).',
    },
  ),
);
export type ShipmentV2 = Static<typeof ShipmentV2Request>;

export const ShipmentUpdateResponse = named(
  'ShipmentUpdateResult',
  Type.Object({
    ShipmentId: Type.String(),
    ShipmentStatus: Type.Integer(),
    ParcelIds: Type.Array(Type.String()),
    ReturnShipmentId: Nullable(Type.String()),
  }),
);
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

export const ShipmentRecord = named(
  'ShipmentRecord',
  Type.Object({
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
  }),
);
export type ShipmentRecordT = Static<typeof ShipmentRecord>;

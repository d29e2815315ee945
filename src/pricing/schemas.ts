import { type Static, Type } from 'typebox';
import { OSLO_DATETIME } from '../http/binding';
import { named } from '../http/schemas';

/**
 * Wire shapes of the four price operations (spec: Price) and of the tariff administration. Names are
 * the spec's; the extensions (`delivery_type`/`DeliveryType`, `payment_code`, `payer_customer_nr`/
 * `PayerCustomerNr`) are documented in docs/tariffs.md.
 */

const CustomerNr = (description: string) =>
  Type.String({ pattern: '^[0-9]{1,10}$', 'x-error': 'A customer number is 1 to 10 digits.', description });
const Zip = (description: string) =>
  Type.String({ pattern: '^[0-9]{4}$', 'x-error': 'A Norwegian postal code is 4 digits.', description });
const Code = (description: string) =>
  Type.String({
    pattern: '^[0-9A-Za-z]{1,4}$',
    'x-error': 'A code is 1 to 4 letters or digits.',
    description,
  });
const UnitCode = Type.String({
  pattern: '^(KL|PL|kl|pl|5[1-9]|[6-9][0-9])$',
  'x-error': 'The unit code must be KL, PL or a special code 51 to 99.',
  description: 'Default `KL` (parcels); `PL` pallets; `51`..`99` special codes of the customer’s agreement.',
});
const DateTime = (description: string) =>
  Type.String({
    maxLength: 40,
    [OSLO_DATETIME]: true,
    description: `${description} ISO 8601 date (\`2026-11-23\`) or date-time without zone (Europe/Oslo).`,
  });
const DeliveryType = Type.Union([Type.Integer({ minimum: 0, maximum: 1 }), Type.String({ maxLength: 10 })], {
  description: 'Extension: `0`/`Private` or `1`/`Company` (default). Private delivery adds its cost line.',
  'x-error': 'The field must be 0 (Private) or 1 (Company).',
});
/** Who pays; `payer` is the request's name for the paying customer's field. */
const paymentCode = (payer: string) =>
  Type.String({
    maxLength: 10,
    description: `Who pays: \`S\`/\`Sender\` (default), \`M\`/\`Recipient\`, \`F\`/\`Other\`. With \`M\` or \`F\`, \`${payer}\` names the payer, whose agreement prices the shipment.`,
  });

const measure = (max: number, description: string) => Type.Number({ minimum: 0, maximum: max, description });

/** One parcel of a price request; lengths in cm, weight in kg, volume in dm³. */
const parcelModel = (names: {
  weight: string;
  length: string;
  height: string;
  width: string;
  volume: string;
}) =>
  Type.Object({
    [names.weight]: Type.Optional(measure(100_000, 'Weight in kg.')),
    [names.length]: Type.Optional(measure(10_000, 'Length in cm.')),
    [names.height]: Type.Optional(measure(10_000, 'Height in cm.')),
    [names.width]: Type.Optional(measure(10_000, 'Width in cm.')),
    [names.volume]: Type.Optional(
      measure(
        10_000_000,
        'Extension: volume in dm³ (`0` = not given), priced unless length, height and width are all given (those win: they are what the terminal measures), as a booked parcel’s `Volume` is.',
      ),
    ),
  });

const ParcelModelV2 = parcelModel({
  weight: 'weight',
  length: 'length',
  height: 'height',
  width: 'width',
  volume: 'volume',
});
const ParcelModelV3 = parcelModel({
  weight: 'Weight',
  length: 'Length',
  height: 'Height',
  width: 'Width',
  volume: 'Volume',
});

export const PriceRequestV2Schema = named(
  'PriceRequestV2',
  Type.Object(
    {
      customer_nr: CustomerNr('Customer number.'),
      sender_zip: Zip('From postal code.'),
      receiver_zip: Zip('To postal code.'),
      volume_d3: Type.Optional(
        Type.Integer({ minimum: 0, maximum: 10_000_000, description: 'Volume in dm³.' }),
      ),
      weight: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Weight in kg.' })),
      number_of_load_meters: Type.Optional(measure(10_000, 'Load meters (decimals accepted).')),
      number_of_pallet_spaces: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
      pickup_date: Type.Optional(DateTime('Pickup date; picks the tariff in force (default today).')),
      unit_code: Type.Optional(UnitCode),
      number_of_units: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 100_000, description: 'Default 1.' }),
      ),
      product_type: Code('Product code, for example `43` (System).'),
      service: Type.Optional(
        Type.Array(Code('Service code.'), { maxItems: 50, description: 'Service codes, repeated in a URL.' }),
      ),
      parcels: Type.Optional(
        Type.Array(ParcelModelV2, {
          maxItems: 999,
          description:
            'Per-parcel measures; each parcel is priced on its own chargeable weight. In a URL: `parcels[0].weight=12&parcels[0].length=60…`.',
        }),
      ),
      delivery_type: Type.Optional(DeliveryType),
      payment_code: Type.Optional(paymentCode('payer_customer_nr')),
      payer_customer_nr: Type.Optional(CustomerNr('Extension: the paying customer for payment_code M or F.')),
    },
    { description: 'Unknown names are ignored, as ASP.NET model binding ignores them.' },
  ),
);
export type PriceRequestV2 = Static<typeof PriceRequestV2Schema>;

export const PriceRequestV3Schema = Type.Object(
  {
    Customernr: CustomerNr('Customer number.'),
    SenderZip: Zip('From postal code.'),
    ReceiverZip: Zip('To postal code.'),
    VolumeD3: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 99_999, description: 'dm³, at most 99999.' }),
    ),
    Weight: Type.Optional(Type.Integer({ minimum: 0, maximum: 99_999, description: 'kg, at most 99999.' })),
    NumberOfLoadMeters: Type.Optional(measure(10_000, 'Load meters.')),
    NumberOfPalletSpaces: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
    PickupDate: Type.Optional(DateTime('Pickup date; picks the tariff in force (default today).')),
    UnitCode: Type.Optional(UnitCode),
    NumberOfUnits: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Default 1.' })),
    ProductCode: Code('Product code.'),
    Services: Type.Optional(Type.Array(Code('Service code.'), { maxItems: 50 })),
    service: Type.Optional(
      Type.Array(Code('Service code.'), {
        maxItems: 50,
        description:
          'The original service’s spelling of `Services` (`?service=16&service=35`); given together with `Services`, the two are one list.',
      }),
    ),
    Parcels: Type.Optional(
      Type.Array(ParcelModelV3, {
        maxItems: 999,
        description: 'Per-parcel measures. In a URL: `Parcels[0].Weight=12&Parcels[0].Length=60…`.',
      }),
    ),
    PaymentCode: Type.Optional(paymentCode('PayerCustomerNr')),
    PayerCustomerNr: Type.Optional(CustomerNr('Extension: the paying customer for PaymentCode M or F.')),
    DeliveryType: Type.Optional(DeliveryType),
  },
  { description: 'Unknown names are ignored, as ASP.NET model binding ignores them.' },
);
export type PriceRequestV3 = Static<typeof PriceRequestV3Schema>;

const Amount = Type.Number({ description: 'NOK excluding VAT, 2 decimals.' });
const FreightDetail = Type.Object({
  Description: Type.String(),
  Cost: Amount,
  CostTypeCode: Type.String({
    description: 'FREIGHT, DISCOUNT, ENERGY, TOLL, PRIVATE, DELIVERY_ADD or PICKUP_ADD (the invoice codes).',
  }),
});
const Freight = Type.Object({
  FreightCost: Amount,
  Details: Type.Array(FreightDetail, {
    description: 'Every freight and surcharge line; sums to FreightCost.',
  }),
});

export const PriceResultV2Schema = named(
  'PriceResultV2',
  Type.Object(
    {
      Freight,
      Services: Type.Array(
        Type.Object({
          ServiceDescription: Type.String(),
          ServiceCost: Amount,
          CostTypeCode: Type.String({ description: 'The service code.' }),
        }),
      ),
      Total: Amount,
    },
    {
      examples: [
        {
          Freight: {
            FreightCost: 459.51,
            Details: [
              { Description: 'Agreed freight', Cost: 432, CostTypeCode: 'FREIGHT' },
              { Description: 'Main freight discount 10 %', Cost: -43.2, CostTypeCode: 'DISCOUNT' },
              { Description: 'Energy addition 11.5 %', Cost: 44.71, CostTypeCode: 'ENERGY' },
              { Description: 'Toll road addition', Cost: 26, CostTypeCode: 'TOLL' },
            ],
          },
          Services: [{ ServiceDescription: 'Pre-notice e-mail', ServiceCost: 3, CostTypeCode: '16' }],
          Total: 462.51,
        },
      ],
    },
  ),
);
export type PriceResultV2 = Static<typeof PriceResultV2Schema>;

export const PriceResultV3Schema = named(
  'PriceResultV3',
  Type.Object({
    Freight,
    Services: Type.Array(
      Type.Object({ ServiceName: Type.String(), ServiceCode: Type.String(), ServiceCost: Amount }),
    ),
    Total: Amount,
  }),
);
export type PriceResultV3 = Static<typeof PriceResultV3Schema>;

export const EuropePriceQuerySchema = Type.Object(
  {
    CustomerId: Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'The price-service id of the customer (admin API `PriceServiceId`), not the customer number.',
    }),
    CustomerIdValidator: Type.Optional(
      Type.String({ maxLength: 64, description: 'Only for special cases; accepted and ignored.' }),
    ),
    CustomerIdClient: Type.Optional(
      Type.String({ maxLength: 64, description: 'Only for special cases; accepted and ignored.' }),
    ),
    ProductCode: Code('An international product (`International: true` in the catalogue).'),
    Services: Type.Optional(Type.Array(Code('Service code.'), { maxItems: 50 })),
    OriginCountry: Type.String({
      pattern: '^[A-Za-z]{2}$',
      'x-error': 'A country is a 2-letter ISO 3166-1 code.',
    }),
    OriginPostalCode: Type.String({ minLength: 1, maxLength: 12 }),
    DestinationCountry: Type.String({
      pattern: '^[A-Za-z]{2}$',
      'x-error': 'A country is a 2-letter ISO 3166-1 code.',
    }),
    DestinationPostalCode: Type.String({ minLength: 1, maxLength: 12 }),
    Weight: Type.String({ maxLength: 20, description: 'Gross weight in kg (`"12.5"`).' }),
    Volume: Type.Optional(Type.String({ maxLength: 20, description: 'Volume in m³ (`"0.25"`).' })),
    IsDangerousGoods: Type.Optional(Type.Boolean()),
    Currency: Type.String({
      pattern: '^[A-Za-z]{3}$',
      'x-error': 'A currency is a 3-letter ISO 4217 code.',
    }),
    ShipmentCategory: Type.String({ maxLength: 20, description: '`import`, `export` or `domestic`.' }),
    Terms: Type.String({ maxLength: 10, description: '`EXW`, `CPT`, `DDU` or `DDP`.' }),
    PickupDate: Type.Optional(
      DateTime(
        'Extension: the pickup date; picks the tariff and the exchange-rate table in force (default today), as a booking’s planned pickup date does, so a booked price can be quoted again.',
      ),
    ),
  },
  { description: 'Unknown names are ignored, as ASP.NET model binding ignores them.' },
);
export type EuropePriceQuery = Static<typeof EuropePriceQuerySchema>;

const Text = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
export const EuropePriceResultSchema = named(
  'EuropePriceResult',
  Type.Object(
    {
      Currency: Type.String(),
      Total: Text('Total in `Currency`, 2 decimals; null when no price exists.'),
      Details: Type.Object({
        FreightPrice: Text('Freight after the terms, 2 decimals.'),
        OtherCosts: Text('Sum of OtherCostsDetails.'),
        OtherCostsDetails: Type.Union([
          Type.Array(Type.Object({ Code: Type.String(), Description: Type.String(), Amount: Type.String() })),
          Type.Null(),
        ]),
      }),
      Error: Type.Union([Type.Object({ Code: Type.String(), Description: Type.String() }), Type.Null()], {
        description: 'Set, with the price fields null, when no price can be produced.',
      }),
    },
    {
      examples: [
        {
          Currency: 'NOK',
          Total: '2084.02',
          Details: {
            FreightPrice: '731.60',
            OtherCosts: '1352.42',
            OtherCostsDetails: [
              { Code: 'DISCOUNT', Description: 'Main freight discount 10 %', Amount: '-73.16' },
              { Code: 'ENERGY', Description: 'Energy addition 14 %', Amount: '92.18' },
              { Code: 'EXPORT_CLEARANCE', Description: 'Export customs clearance', Amount: '460.20' },
              { Code: 'IMPORT_CLEARANCE', Description: 'Import customs clearance', Amount: '578.20' },
              { Code: 'DUTY_HANDLING', Description: 'Duty and VAT handling', Amount: '295.00' },
            ],
          },
          Error: null,
        },
      ],
    },
  ),
);
export type EuropePriceResult = Static<typeof EuropePriceResultSchema>;

export const TariffSummarySchema = Type.Object({
  ValidFrom: Type.String(),
  Description: Type.Union([Type.String(), Type.Null()]),
  Sha256: Type.String(),
  Source: Type.String({ description: '`file:<name>` for shipped versions, `admin` for uploads.' }),
  LoadedAt: Type.String({
    description: 'When this process loaded it: `YYYY-MM-DDTHH:mm:ss`, Oslo local time.',
  }),
  Products: Type.Array(Type.String()),
  InternationalProducts: Type.Array(Type.String()),
});
export type TariffSummary = Static<typeof TariffSummarySchema>;

export const ExchangeRateSummarySchema = Type.Object({
  ValidFrom: Type.String(),
  Source: Type.String(),
  LoadedAt: Type.String({
    description: 'When this process loaded it: `YYYY-MM-DDTHH:mm:ss`, Oslo local time.',
  }),
  Rates: Type.Record(Type.String(), Type.String()),
});
export type ExchangeRateSummary = Static<typeof ExchangeRateSummarySchema>;

import { Type } from 'typebox';
import { OSLO_DATETIME } from '../http/binding';
import { Nullable, named, STRICT } from '../http/schemas';
import { INT32_MAX } from '../lib/int32';
import { V1_COST_FIELDS } from './cost-codes';

const Str = Nullable(Type.String());
const DateTime = Nullable(Type.String({ description: 'YYYY-MM-DDTHH:mm:ss, Europe/Oslo.' }));
const Dec = Type.Number();

/** Query of both invoice reports; the v2 report ignores the terminal filters. */
export const ReportQuery = Type.Object({
  Customernr: Type.String({ description: 'The paying customer number.' }),
  Payer: Type.String({ description: '`S` as sender, `M` as recipient, `F` as other payer.' }),
  PickupTerminal: Type.Optional(Type.String({ maxLength: 10 })),
  DeliveryTerminal: Type.Optional(Type.String({ maxLength: 10 })),
  FromPickupDate: Type.String({ description: 'A date (YYYY-MM-DD), inclusive.', [OSLO_DATETIME]: true }),
  ToPickupDate: Type.String({
    [OSLO_DATETIME]: true,
    description: 'A date (YYYY-MM-DD), inclusive; at most 366 days after FromPickupDate.',
  }),
});
export const ReportV2Query = Type.Omit(ReportQuery, ['PickupTerminal', 'DeliveryTerminal']);

export const CostLineV1 = Type.Object({
  Waybillnr: Type.String(),
  ...Object.fromEntries(V1_COST_FIELDS.map((f) => [f, Type.String()])),
});

export const InvoiceReportV1 = named(
  'InvoiceReportV1',
  Type.Object({
    Waybillnr: Type.String(),
    Sender: Str,
    PickupZip: Str,
    Recipient: Str,
    DeliveryZip: Str,
    NumberOfParcels: Type.String(),
    RealWeight: Type.String(),
    VolumeDm3: Type.String(),
    CalculationWeight: Type.String(),
    LoadMeter: Type.String(),
    GrossShipping: Type.String(),
    OtherIncome: Type.String(),
    NetShipping: Type.String(),
    VatPercent: Type.String({
      description:
        'Extension: the VAT rate of the shipment, `25` (domestic) or `0` (to or from outside the VAT area: abroad, Svalbard, Jan Mayen; exempt).',
    }),
    VatKr: Type.String({ description: 'Extension: the VAT on NetShipping, as on the invoice.' }),
    NetShippingInclVat: Type.String({ description: 'Extension: NetShipping plus VatKr.' }),
    Product: Type.String(),
    PaymentCode: Type.String(),
    InvoiceCustomerNr: Type.String(),
    InvoiceCustomer: Type.String(),
    InvoiceNumber: Type.String(),
    OrderReference: Str,
    DeliveryTerminal: Str,
    PickupTerminal: Str,
    RecipientReference: Str,
    DeliveryDate: DateTime,
    PickupDate: DateTime,
    Split: Type.Boolean(),
    Details: Type.Array(CostLineV1),
  }),
);

export const InvoiceReportV2 = named(
  'InvoiceReportV2',
  Type.Object({
    ShipmentNr: Type.String(),
    SenderReference: Str,
    SenderCustomerName: Str,
    RecipientCustomerName: Str,
    DeliveryAddress: Str,
    InvoiceCustomerName: Type.String(),
    PickupZip: Str,
    PickupTerminalId: Str,
    RecipientZip: Str,
    RecipientTerminalId: Str,
    GoodsTypeCode: Str,
    InvoiceLineNr: Type.String(),
    ProductCode: Type.String(),
    SenderCustomerNr: Type.Integer(),
    RecipientCustomerNr: Nullable(Type.Integer()),
    InvoiceCustomerNr: Type.Integer(),
    NumberOfCollis: Type.Integer(),
    InvoiceNr: Type.Integer(),
    CalculatedWeightKg: Dec,
    RealWeightKg: Dec,
    VolumeDm3: Dec,
    TotalFreightPrice: Dec,
    VatPercent: Type.Number({
      description:
        'Extension: the VAT rate of the shipment, 25 (domestic) or 0 (to or from outside the VAT area: abroad, Svalbard, Jan Mayen; exempt).',
    }),
    VatKr: Type.Number({
      description: 'Extension: the VAT on TotalFreightPrice (the sum of the lines’ VatKr).',
    }),
    TotalFreightPriceInclVat: Dec,
    InvoiceDate: DateTime,
    DeliveryDate: DateTime,
    PickupDate: DateTime,
    OptionCodes: Type.Array(Type.Object({ OptionCode: Type.String(), OptionName: Type.String() })),
    Details: Type.Array(
      Type.Object({
        AmountKr: Dec,
        CostCode: Type.String(),
        CostName: Type.String(),
        AmountTypeCode: Type.String({ description: 'F freight, A addition, D discount, S service.' }),
        AmountTypeName: Type.String(),
        VatPercent: Type.Number({ description: 'Extension: the line’s VAT rate.' }),
        VatKr: Type.Number({ description: 'Extension: the line’s VAT, rounded half-up to the øre.' }),
      }),
    ),
  }),
);

/** The v3 record (CONTRACT §14): every field of the v2 record, and these. */
export const InvoiceReportV3 = named(
  'InvoiceReportV3',
  Type.Object({
    ...InvoiceReportV2.properties,
    GiroKid: Type.String({ description: 'The invoice’s KID (payment reference).' }),
    RecipientReference: Str,
    OrderReference: Str,
    LoadingMeters: Dec,
    PalletPlaces: Type.Integer(),
    PaymentCode: Type.String({ description: 'Who pays: `S` sender, `M` recipient, `F` other.' }),
    UnitCode: Type.String(),
    Units: Type.Integer(),
  }),
);

export const InvoiceListQuery = Type.Object({
  Customernr: Type.String({ description: 'The paying customer number (an integer).' }),
  FromInvoiceDate: Type.String({ description: 'A date (YYYY-MM-DD), inclusive.', [OSLO_DATETIME]: true }),
  ToInvoiceDate: Type.String({
    [OSLO_DATETIME]: true,
    description: 'A date (YYYY-MM-DD), inclusive; at most 366 days after FromInvoiceDate.',
  }),
});

export const InvoiceSummary = named(
  'InvoiceSummary',
  Type.Object({
    InvoiceNr: Type.Integer(),
    InvoiceDate: Type.String({ description: 'YYYY-MM-DDT00:00:00 (the date).' }),
    DueDate: Type.String({ description: 'YYYY-MM-DDT00:00:00 (the date).' }),
    Kid: Type.String({ description: 'The payment reference (MOD10).' }),
    IsCreditNote: Type.Boolean(),
    CreditsInvoiceNr: Nullable(Type.Integer({ description: 'For a credit note: the invoice it corrects.' })),
    Shipments: Type.Integer({ description: 'Shipments on the invoice.' }),
    TotalKr: Type.String({ description: 'Total excluding VAT, two decimals (negative on a credit note).' }),
  }),
);

/**
 * The spec types both as `int`, 32 bits as customer and invoice numbers are everywhere else (the
 * invoice PDF's path, a credit note); a generated client sends numbers, and `01000` still reads as 1000.
 */
export const DetailsQuery = Type.Object({
  Customernr: Type.Integer({
    minimum: 0,
    maximum: INT32_MAX,
    description: 'The paying customer number.',
    'x-error': `The Customernr field must be a customer number (a whole number up to ${INT32_MAX}).`,
  }),
  Invoicenr: Type.Integer({
    minimum: 0,
    maximum: INT32_MAX,
    description: 'The invoice number.',
    'x-error': `The Invoicenr field must be an invoice number (a whole number up to ${INT32_MAX}).`,
  }),
});

export const InvoiceLine = named(
  'InvoiceLine',
  Type.Object({
    InvoiceNr: Type.String(),
    Consignment: Type.String(),
    PickupZip: Str,
    DeliveryZip: Str,
    GoodsTypeCode: Str,
    UnitCode: Str,
    AmountDescription: Str,
    CustomerReference: Str,
    Kid: Type.String(),
    OrderReference: Str,
    RecipientName: Str,
    RowNumber: Type.String(),
    SenderName: Str,
    RecipientReference: Str,
    AmountTxt: Str,
    AmountTxtEnglish: Str,
    ProductCode: Str,
    ProductName: Str,
    ProductOptions: Str,
    CustomerNr: Type.Integer(),
    NumberOfParcels: Type.Integer(),
    PickupDate: DateTime,
    VolumeDm3: Dec,
    RealWeihtKg: Dec,
    CalculationWeightKg: Dec,
    AmountKr: Dec,
    AdditionEnergyKr: Dec,
    VatPercent: Type.Number({ description: 'Extension: the VAT rate of the row, 25 or 0 (exempt).' }),
    VatKr: Type.Number({
      description:
        'Extension: the VAT of the row, rounded half-up to the øre; the rows’ sum is the invoice’s VAT.',
    }),
    AmountEuro: Nullable(Dec),
    ExchangeRateEuro: Nullable(Dec),
  }),
);

export const RunRequest = Type.Object(
  {
    ToDate: Type.String({
      description: 'Invoice shipments picked up on or before this date (YYYY-MM-DD).',
      [OSLO_DATETIME]: true,
    }),
  },
  STRICT,
);

const Issued = Type.Object({ InvoiceNr: Type.Integer(), CustomerNr: Type.String(), Total: Dec });
export const RunResponse = Type.Object({ RunId: Type.Integer(), Invoices: Type.Array(Issued) });

export const CreditNoteRequest = Type.Object(
  {
    InvoiceNr: Type.Integer({ minimum: 1, maximum: INT32_MAX }),
    // Left out, every shipment of the invoice; an empty list is a mistake, not "all" (400), and so is
    // a misspelt name (STRICT), which would otherwise leave it out.
    ShipmentIds: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 35 }), { minItems: 1, maxItems: 10_000 }),
    ),
    Reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  STRICT,
);
export const CreditNoteResponse = Issued;

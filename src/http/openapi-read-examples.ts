import type { OperationExamples } from './openapi-examples';

/** The first parcel's record of the examples' booking as its read gives it (the shipment's fields repeat on each). */
const SHIPMENT_RECORD = {
  ParcelStatus: 2,
  CustomerId: '1000',
  ParcelId: '070900010000000010',
  IsReturn: false,
  Weight: 12.5,
  Length: 60,
  Height: 30,
  Width: 40,
  Volume: null,
  Addresses: [
    {
      AddressTypeId: 1,
      FirstName: null,
      LastName: null,
      CompanyName: 'Demo Kunde AS',
      Address: 'Karl Johans gate 1',
      Address2: null,
      Zip: '0154',
      Place: 'OSLO',
      County: null,
      Country: 'NO',
    },
    {
      AddressTypeId: 2,
      FirstName: null,
      LastName: null,
      CompanyName: 'Fjord Frakt AS',
      Address: 'Bryggen 1',
      Address2: null,
      Zip: '5003',
      Place: 'BERGEN',
      County: null,
      Country: 'NO',
    },
  ],
  PickupPhone: null,
  PickupEmail: null,
  RecipientPhone: null,
  RecipientEmail: 'post@fjordfrakt.no',
  ReturnPhone: null,
  ReturnEmail: null,
  PickupPointId: null,
  DeliveryDate: '2026-11-24T08:00:00',
  DeliveryDateTo: '2026-11-24T16:00:00',
  PickupDate: '2026-11-23T08:00:00',
  PickupDateTo: '2026-11-23T16:00:00',
  ProductCode: '43',
  Services: ['16'],
  DeliveryType: 1,
  CommentToCarrier: null,
  GoodsDescription: null,
  ShipmentId: '70900010000000010',
  UnitCode: 'KL',
  RecipientShallPay: false,
  RecipientCustomerId: null,
  References: [{ ReferenceTypeId: 1, ReferenceLevel: 1, ReferenceText: 'PO-4711' }],
  LoadingMeters: 0,
  PalletSpaces: 0,
};

/** The examples' invoice's first cost line; the others differ in their amounts and texts. */
const INVOICE_LINE = {
  InvoiceNr: '1',
  Consignment: '70900010000000010',
  PickupZip: '0154',
  DeliveryZip: '5003',
  GoodsTypeCode: 'KL',
  UnitCode: 'KL',
  AmountDescription: 'Agreed freight',
  CustomerReference: 'PO-4711',
  Kid: '18',
  OrderReference: 'PO-4711',
  RecipientName: 'Fjord Frakt AS',
  RowNumber: '1',
  SenderName: 'Demo Kunde AS',
  RecipientReference: null,
  AmountTxt: 'Avtalt frakt',
  AmountTxtEnglish: 'Agreed freight',
  ProductCode: '43',
  ProductName: 'System',
  ProductOptions: '16',
  CustomerNr: 1000,
  NumberOfParcels: 2,
  PickupDate: '2026-11-23T00:00:00',
  VolumeDm3: 72,
  RealWeihtKg: 16.5,
  CalculationWeightKg: 28,
  AmountKr: 688,
  AdditionEnergyKr: 0,
  VatPercent: 25,
  VatKr: 172,
  AmountEuro: 58.31,
  ExchangeRateEuro: 11.8,
};

/**
 * The read answers among the document's examples (openapi-examples.ts has the booking, prices and
 * invoice report): what the sandbox answers about the examples' booking once it is picked up and
 * invoiced, checked by src/http/openapi-examples.test.ts like the rest.
 */
export const READ_EXAMPLES: Record<string, OperationExamples> = {
  // GET /v3/Calculate/?Customernr=1000&SenderZip=0150&ReceiverZip=5003&Weight=12&VolumeD3=72&ProductCode=43&Services=16
  getPriceV3: {
    responses: {
      200: {
        Freight: {
          FreightCost: 459.51,
          Details: [
            { Description: 'Agreed freight', Cost: 432, CostTypeCode: 'FREIGHT' },
            { Description: 'Main freight discount 10 %', Cost: -43.2, CostTypeCode: 'DISCOUNT' },
            { Description: 'Energy addition 11.5 %', Cost: 44.71, CostTypeCode: 'ENERGY' },
            { Description: 'Toll road addition', Cost: 26, CostTypeCode: 'TOLL' },
          ],
        },
        Services: [{ ServiceName: 'Pre-notice e-mail', ServiceCode: '16', ServiceCost: 3 }],
        Total: 462.51,
      },
    },
  },
  // The examples' booking (BOOKING_EXAMPLE), read back.
  getShipmentV2: {
    responses: {
      200: [
        SHIPMENT_RECORD,
        {
          ...SHIPMENT_RECORD,
          ParcelId: '070900010000000027',
          Weight: 4,
          Length: null,
          Height: null,
          Width: null,
        },
      ],
    },
  },
  // After its pickup scans.
  listShipmentEvents: {
    responses: {
      200: {
        ShipmentId: '70900010000000010',
        PickedupDate: '2026-11-23T13:00:00',
        Parcels: [
          {
            ParcelId: '070900010000000010',
            Events: [
              { EventId: 'scan-0', EventType: 'PickedUp', Time: '2026-11-23T13:00:00', Terminal: null },
            ],
          },
          {
            ParcelId: '070900010000000027',
            Events: [
              { EventId: 'scan-1', EventType: 'PickedUp', Time: '2026-11-23T13:00:00', Terminal: null },
            ],
          },
        ],
      },
    },
  },
  // GET /v1/shipment/list?postalcode=0154&customerid=1000&pickupFromDate=2026-11-23&pickupToDate=2026-11-23
  listShipments: {
    responses: {
      200: [
        {
          ShipmentId: '70900010000000010',
          RecipientName: 'Fjord Frakt AS',
          RecipientAddress1: 'Bryggen 1',
          RecipientAddress2: null,
          RecipientZip: '5003',
          RecipientPlace: 'BERGEN',
          PickupName: 'Demo Kunde AS',
          PickupAddress: 'Karl Johans gate 1',
          PickupZip: '0154',
          PickupPlace: 'OSLO',
          UnitType: 'KL',
          PickupDate: '2026-11-23T00:00:00',
          PickupTimeFrom: '2026-11-23T08:00:00',
          PickupTimeTo: '2026-11-23T16:00:00',
          PickedupDate: '2026-11-23T13:00:00',
          NumberOfUnits: 2,
          NumberOfParcels: 2,
          CustomerId: 1000,
          Weight: 16.5,
          IsSplitted: false,
        },
      ],
    },
  },
  // GET /v1/Invoice/GetInvoiceDetails?Customernr=1000&Invoicenr=1
  getInvoiceDetails: {
    responses: {
      200: [
        INVOICE_LINE,
        {
          ...INVOICE_LINE,
          AmountDescription: 'Main freight discount 10 %',
          RowNumber: '2',
          AmountTxt: 'Fraktrabatt',
          AmountTxtEnglish: 'Freight discount',
          AmountKr: -68.8,
          AdditionEnergyKr: 0,
          VatKr: -17.2,
          AmountEuro: -5.83,
        },
        {
          ...INVOICE_LINE,
          AmountDescription: 'Energy addition 11.5 %',
          RowNumber: '3',
          AmountTxt: 'Energitillegg',
          AmountTxtEnglish: 'Energy surcharge',
          AmountKr: 71.21,
          AdditionEnergyKr: 71.21,
          VatKr: 17.8,
          AmountEuro: 6.03,
        },
        {
          ...INVOICE_LINE,
          AmountDescription: 'Toll road addition',
          RowNumber: '4',
          AmountTxt: 'Bomtillegg',
          AmountTxtEnglish: 'Toll road surcharge',
          AmountKr: 26,
          AdditionEnergyKr: 0,
          VatKr: 6.5,
          AmountEuro: 2.2,
        },
        {
          ...INVOICE_LINE,
          AmountDescription: 'Pre-notice e-mail',
          RowNumber: '5',
          AmountTxt: 'Pre-notice e-mail',
          AmountTxtEnglish: 'Pre-notice e-mail',
          AmountKr: 3,
          AdditionEnergyKr: 0,
          VatKr: 0.75,
          AmountEuro: 0.25,
        },
      ],
    },
  },
};

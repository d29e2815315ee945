/**
 * Examples in the OpenAPI document, by operationId: answers the server really gave to these requests
 * with the sandbox key, as customer 1000 of a fresh sandbox ("Demo Kunde AS", 10 % freight discount,
 * admin/sandbox.ts). src/http/openapi-examples.test.ts seeds the sandbox with that same code, books,
 * prices and invoices them on a fresh database and fails when an answer differs.
 */
import { READ_EXAMPLES } from './openapi-read-examples';

export interface OperationExamples {
  request?: unknown;
  responses?: Record<string, unknown>;
}

/** The booking of the examples: also the booking routes' schema example (booking/routes.ts). */
export const BOOKING_EXAMPLE = {
  ShipmentStatus: 'Published',
  CustomerId: '1000',
  ProductCode: '43',
  DeliveryType: 1,
  Services: ['16'],
  SenderReference: 'PO-4711',
  PickupCompanyName: 'Demo Kunde AS',
  PickupAddress: 'Karl Johans gate 1',
  PickupZip: '0154',
  PickupPlace: 'OSLO',
  RecipientCompanyName: 'Fjord Frakt AS',
  RecipientAddress: 'Bryggen 1',
  RecipientZip: '5003',
  RecipientPlace: 'BERGEN',
  RecipientEmail: 'post@fjordfrakt.no',
  Parcels: [{ Weight: 12.5, Length: 60, Width: 40, Height: 30 }, { Weight: 4 }],
};

const PRICE_REQUEST = {
  customer_nr: '1000',
  sender_zip: '0154',
  receiver_zip: '5003',
  weight: 17,
  product_type: '43',
  service: ['16'],
  pickup_date: '2026-11-23',
};

/** A sandbox pickup point, as `GET /v1/pickuppoints/10154` reads it (no distance: none was asked). */
const PICKUP_POINT = {
  Id: 10154,
  Name: 'Kolli sandbox point OSLO 0154',
  Address: 'Sandkassevegen 8',
  Zip: '0154',
  Place: 'OSLO',
  Latitude: 59.9115,
  Longitude: 10.7475,
  DistanceKm: null,
  OpeningHours: 'Mo-Fr 09:00-17:00; Sa 10:00-15:00',
  Sandbox: true,
};

export const EXAMPLES: Record<string, OperationExamples> = {
  updateShipment: {
    request: BOOKING_EXAMPLE,
    responses: {
      201: {
        ShipmentId: '70900010000000010',
        ShipmentStatus: 2,
        ParcelIds: ['070900010000000010', '070900010000000027'],
        ReturnShipmentId: null,
      },
    },
  },
  getShipmentPrice: {
    responses: {
      200: {
        ShipmentId: '70900010000000010',
        ShipmentStatus: 2,
        Quote: false,
        Currency: 'NOK',
        TariffVersion: '2026-01-01',
        ChargeableWeightKg: 28,
        Lines: [
          { CostCode: 'FREIGHT', CostName: 'Agreed freight', AmountKr: 688 },
          { CostCode: 'DISCOUNT', CostName: 'Main freight discount 10 %', AmountKr: -68.8 },
          { CostCode: 'ENERGY', CostName: 'Energy addition 11.5 %', AmountKr: 71.21 },
          { CostCode: 'TOLL', CostName: 'Toll road addition', AmountKr: 26 },
          { CostCode: '16', CostName: 'Pre-notice e-mail', AmountKr: 3 },
        ],
        Total: 719.41,
      },
    },
  },
  calculatePriceV2: {
    request: PRICE_REQUEST,
    responses: {
      200: {
        Freight: {
          FreightCost: 382.24,
          Details: [
            { Description: 'Agreed freight', Cost: 355, CostTypeCode: 'FREIGHT' },
            { Description: 'Main freight discount 10 %', Cost: -35.5, CostTypeCode: 'DISCOUNT' },
            { Description: 'Energy addition 11.5 %', Cost: 36.74, CostTypeCode: 'ENERGY' },
            { Description: 'Toll road addition', Cost: 26, CostTypeCode: 'TOLL' },
          ],
        },
        Services: [{ ServiceDescription: 'Pre-notice e-mail', ServiceCost: 3, CostTypeCode: '16' }],
        Total: 385.24,
      },
    },
  },
  getInvoiceReportV2: {
    responses: {
      200: [
        {
          ShipmentNr: '70900010000000010',
          SenderReference: 'PO-4711',
          SenderCustomerName: 'Demo Kunde AS',
          RecipientCustomerName: 'Fjord Frakt AS',
          DeliveryAddress: 'Bryggen 1, 5003 BERGEN',
          InvoiceCustomerName: 'Demo Kunde AS',
          PickupZip: '0154',
          PickupTerminalId: 'OSL',
          RecipientZip: '5003',
          RecipientTerminalId: 'BGO',
          GoodsTypeCode: 'KL',
          InvoiceLineNr: '1',
          ProductCode: '43',
          SenderCustomerNr: 1000,
          RecipientCustomerNr: null,
          InvoiceCustomerNr: 1000,
          NumberOfCollis: 2,
          InvoiceNr: 1,
          CalculatedWeightKg: 28,
          RealWeightKg: 16.5,
          VolumeDm3: 72,
          TotalFreightPrice: 719.41,
          VatPercent: 25,
          VatKr: 179.85,
          TotalFreightPriceInclVat: 899.26,
          InvoiceDate: '2026-11-30T00:00:00',
          DeliveryDate: '2026-11-24T00:00:00',
          PickupDate: '2026-11-23T00:00:00',
          OptionCodes: [{ OptionCode: '16', OptionName: 'Pre-notice e-mail' }],
          Details: [
            {
              AmountKr: 688,
              CostCode: 'FREIGHT',
              CostName: 'Agreed freight',
              AmountTypeCode: 'F',
              AmountTypeName: 'Freight',
              VatPercent: 25,
              VatKr: 172,
            },
            {
              AmountKr: -68.8,
              CostCode: 'DISCOUNT',
              CostName: 'Main freight discount 10 %',
              AmountTypeCode: 'D',
              AmountTypeName: 'Discount',
              VatPercent: 25,
              VatKr: -17.2,
            },
            {
              AmountKr: 71.21,
              CostCode: 'ENERGY',
              CostName: 'Energy addition 11.5 %',
              AmountTypeCode: 'A',
              AmountTypeName: 'Addition',
              VatPercent: 25,
              VatKr: 17.8,
            },
            {
              AmountKr: 26,
              CostCode: 'TOLL',
              CostName: 'Toll road addition',
              AmountTypeCode: 'A',
              AmountTypeName: 'Addition',
              VatPercent: 25,
              VatKr: 6.5,
            },
            {
              AmountKr: 3,
              CostCode: '16',
              CostName: 'Pre-notice e-mail',
              AmountTypeCode: 'S',
              AmountTypeName: 'Service',
              VatPercent: 25,
              VatKr: 0.75,
            },
          ],
        },
      ],
    },
  },
  // GET /v1/pickuppoints?postalCode=0150&limit=2: nearest first, with the distance.
  listPickupPoints: {
    responses: {
      200: [
        {
          ...PICKUP_POINT,
          Id: 10271,
          Name: 'Kolli sandbox point OSLO 0271',
          Address: 'Sandkassevegen 27',
          Zip: '0271',
          Latitude: 59.9132,
          Longitude: 10.7078,
          DistanceKm: 2.53,
        },
        { ...PICKUP_POINT, DistanceKm: 3.02 },
      ],
    },
  },
  getPickupPoint: { responses: { 200: PICKUP_POINT } },
  ...READ_EXAMPLES,
};

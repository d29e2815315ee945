/**
 * Every operation of the API, keyed by method and OpenAPI path: its stable `operationId` (verb +
 * noun; client generators name their methods after it, so it never changes once released), its tag,
 * and what the route's own schema does not say. `src/http/openapi.ts` applies the table to the
 * document; a test fails when a served route has no entry. Entries for routes that are not (yet)
 * registered do no harm: they are used once the route exists.
 */

/** The tags, in the order the reference shows them, each with what its operations are for. */
export const TAGS = [
  { name: 'Authentication', description: 'Access tokens for API keys and OAuth clients.' },
  { name: 'Booking', description: 'Create, update, publish, read and cancel shipments.' },
  { name: 'Price', description: 'Freight prices for domestic and international shipments.' },
  { name: 'Invoices', description: 'Invoice reports, invoice lines and invoice documents.' },
  { name: 'Shipment listing', description: 'Shipments picked up at a postal code in an interval.' },
  { name: 'Webhooks', description: 'Webhook registrations and their deliveries.' },
  {
    name: 'Request log',
    description:
      'The requests made with the account’s keys, redacted: what an integration sent, and why it was refused.',
  },
  { name: 'Tracking', description: 'Scan events of a shipment.' },
  { name: 'Labels', description: 'Shipping labels of booked shipments (Label API).' },
  { name: 'Products', description: 'Products and services (options) that can be booked (Product API).' },
  { name: 'Schedule', description: 'Delivery dates and working days (schedule API).' },
  { name: 'Pickup points', description: 'Pickup points near a postal code (pickup point API).' },
  { name: 'Postal codes', description: 'The Norwegian postal register and the carrier terminals.' },
  { name: 'Customers', description: 'The customers an API key may act for.' },
  {
    name: 'Carrier operations',
    description: 'Parcel scans reported by the carrier’s terminals and drivers.',
  },
  { name: 'Sandbox', description: 'Test helpers that exist only outside production.' },
  {
    name: 'Administration',
    description: 'Customers, keys, reference data, tariffs and invoicing runs (admin scope).',
  },
  { name: 'Operations', description: 'Liveness and readiness for load balancers and orchestrators.' },
] as const;

export type Tag = (typeof TAGS)[number]['name'];

export interface OperationDoc {
  operationId: string;
  tag: Tag;
  /** Used when the route declares none. */
  summary?: string;
  /** Used when the route declares none; the spec's wording for the spec's operations. */
  description?: string;
  /** What a success answer is, instead of a generic status name. */
  success?: string;
  /** GET answers carry an `ETag`, and `If-None-Match` with it answers 304 (src/http/conditional.ts). */
  conditional?: boolean;
  /** The creating answer (201, else 200) carries a `Location` header naming the created resource. */
  location?: boolean;
  /**
   * A booking write that takes `Idempotency-Key`: its 200 and 201 carry `Location`, `ETag` and
   * `Idempotent-Replayed`, and its 409 `Retry-After` while the same key is still being carried out.
   */
  idempotent?: boolean;
  /** Every error answer is RFC 6749's `{"error", "error_description"}` (the token endpoint). */
  oauthErrors?: boolean;
}

const op = (
  operationId: string,
  tag: Tag,
  more: Omit<OperationDoc, 'operationId' | 'tag'> = {},
): OperationDoc => ({ operationId, tag, ...more });

const READ_SHIPMENT =
  'Reads a shipment back by its id: an array of shipment records, one per parcel. Unknown, cancelled and other customers’ shipments are 404.';
const BOOK =
  'Books a shipment in one call (create and publish): the spec’s booking request, answered with the booked shipment.';
const INVOICE_REPORT_V3 =
  'Invoiced shipments of a payer in a pickup-date interval, with VAT per rate (version 3 record).';

export const OPERATIONS: Record<string, OperationDoc> = {
  'GET /healthz': op('getHealth', 'Operations', {
    description: 'Answers 200 while the process runs; it does not touch the database.',
    success: 'The process is up.',
  }),
  'GET /readyz': op('getReadiness', 'Operations', {
    description:
      'Answers 200 when the database answers; 503 while it does not, or while the process drains before shutting down.',
    success: 'The database answers.',
  }),

  'POST /oauth/token': op('createAccessToken', 'Authentication', {
    success: 'The access token.',
    oauthErrors: true,
  }),
  'GET /v1/me': op('getCaller', 'Authentication', { success: 'The key in use, its customers and scopes.' }),
  'POST /as/token.oauth2': op('createOAuthToken', 'Authentication', {
    success: 'The access token.',
    oauthErrors: true,
  }),

  'POST /Shipment/Update': op('updateShipment', 'Booking', {
    location: true,
    idempotent: true,
    success: 'The shipment as stored.',
  }),
  'POST /Shipment/Book': op('bookShipment', 'Booking', {
    description: BOOK,
    location: true,
    idempotent: true,
  }),
  'POST /v2/Shipment/Book': op('bookShipmentV2', 'Booking', {
    description: BOOK,
    location: true,
    idempotent: true,
  }),
  'POST /v2/Shipment/Update': op('updateShipmentV2', 'Booking', {
    idempotent: true,
    description: 'Creates or updates a shipment (version 2 path of `POST /Shipment/Update`).',
    location: true,
  }),
  'GET /v2/Shipment/{shipmentid}': op('getShipmentV2', 'Booking', {
    description: READ_SHIPMENT,
    success: 'One shipment record per parcel.',
    conditional: true,
  }),
  'GET /Shipment/{shipmentid}': op('getShipment', 'Booking', {
    description: READ_SHIPMENT,
    success: 'One shipment record per parcel.',
    conditional: true,
  }),
  'DELETE /v2/Shipment/{shipmentid}': op('cancelShipment', 'Booking', {
    success: 'The shipment is cancelled.',
  }),
  'GET /v2/Shipment/{shipmentid}/price': op('getShipmentPrice', 'Booking', {
    success: 'The cost lines and their total.',
    conditional: true,
  }),

  'POST /v2/PriceCalculator': op('calculatePriceV2', 'Price', { success: 'The domestic price.' }),
  'GET /v2/PriceCalculator': op('getPriceV2', 'Price', { success: 'The domestic price.' }),
  'GET /v3/Calculate': op('getPriceV3', 'Price', { success: 'The domestic price (v3 shape).' }),
  'GET /v2/europe/price': op('getInternationalPrice', 'Price', { success: 'The international price.' }),

  'GET /v1/InvoiceGetInvoiceReport': op('getInvoiceReport', 'Invoices', {
    success: 'One v1 record per invoiced shipment.',
    conditional: true,
  }),
  'GET /v2/Invoice/GetInvoiceReport': op('getInvoiceReportV2', 'Invoices', {
    description:
      'Lists the invoiced shipments that `Customernr` pays in the role `Payer` (`S`, `M` or `F`), picked up from `FromPickupDate` to `ToPickupDate`, as version 2 records (one per shipment with its cost lines).',
    success: 'One v2 record per invoiced shipment.',
    conditional: true,
  }),
  'GET /v3/InvoiceGetInvoiceReport': op('getInvoiceReportV3', 'Invoices', {
    description: INVOICE_REPORT_V3,
    conditional: true,
  }),
  'GET /v3/Invoice/GetInvoiceReport': op('getInvoiceReportV3Path', 'Invoices', {
    description: INVOICE_REPORT_V3,
    conditional: true,
  }),
  'GET /v3/Invoice/GetInvoiceReportByInvoicenr': op('getInvoiceReportByInvoiceNr', 'Invoices', {
    description: 'The invoiced shipments of one invoice, with VAT per rate (version 3 record).',
    conditional: true,
  }),
  'GET /v1/Invoice/GetInvoiceDetails': op('getInvoiceDetails', 'Invoices', {
    success: 'One row per cost line.',
    conditional: true,
  }),
  'GET /v1/Invoice/{invoicenr}/pdf': op('getInvoicePdf', 'Invoices', { conditional: true }),
  'GET /v1/Invoice/list': op('listInvoices', 'Invoices', {
    success: 'One record per invoice or credit note.',
  }),

  'GET /v1/shipment/list': op('listShipments', 'Shipment listing', { success: 'One record per shipment.' }),

  'GET /v1/Webhooks/{webhookId}': op('getWebhook', 'Webhooks', { success: 'The webhook record.' }),
  'PUT /v1/Webhooks/{webhookId}': op('replaceWebhook', 'Webhooks', { success: 'The webhook record.' }),
  'DELETE /v1/Webhooks/{webhookId}': op('deleteWebhook', 'Webhooks', {
    success: 'The registration is deleted.',
  }),
  'GET /v1/RequestLog': op('listRequestLog', 'Request log', {
    success: 'The newest requests first, with their redacted bodies, and the cursor of the next page.',
  }),
  'POST /v1/Webhooks': op('createWebhook', 'Webhooks', { location: true, success: 'The webhook record.' }),
  'GET /v1/Webhooks': op('listWebhooks', 'Webhooks', { success: 'The webhook records.' }),
  'GET /v1/Webhooks/{webhookId}/deliveries': op('listWebhookDeliveries', 'Webhooks', {
    success: 'The newest deliveries.',
  }),
  'POST /v1/Webhooks/{webhookId}/test': op('testWebhook', 'Webhooks', {
    success: 'The outcome of the test.',
  }),

  'GET /v1/Shipment/{shipmentid}/events': op('listShipmentEvents', 'Tracking', {
    success: 'The scan events per parcel.',
  }),
  'GET /v1/Parcel/{parcelId}/events': op('listParcelEvents', 'Tracking', {
    success: 'The parcel’s shipment, with that parcel’s events alone.',
  }),
  'GET /v1/labels/{shipmentId}': op('getLabels', 'Labels', { conditional: true }),

  'GET /v1/products': op('listProducts', 'Products', { success: 'The products.' }),
  'GET /v1/products/{productCode}': op('getProduct', 'Products', {
    description: 'One product with its segment, unit codes, allowed services, limits and time windows.',
    success: 'The product.',
  }),
  'GET /v1/services': op('listServices', 'Products', { success: 'The services.' }),
  'GET /v1/services/{serviceCode}': op('getService', 'Products', {
    description: 'One service (option) with its price basis and the booking fields it requires.',
    success: 'The service.',
  }),
  'GET /v1/schedule/deliverydates': op('getDeliveryDates', 'Schedule', { success: 'The delivery dates.' }),
  'GET /v1/schedule/workingdays': op('listWorkingDays', 'Schedule', { success: 'The working days.' }),
  'GET /v1/pickuppoints': op('listPickupPoints', 'Pickup points', { success: 'The nearest pickup points.' }),
  'GET /v1/pickuppoints/{id}': op('getPickupPoint', 'Pickup points', {
    description: 'One pickup point by its id, as `PickupPointId` in a booking names it.',
    success: 'The pickup point.',
  }),
  'GET /v1/postalcodes/{postalCode}': op('getPostalCode', 'Postal codes', {
    description: 'The place name, municipality and serving terminal of a four-digit Norwegian postal code.',
    success: 'The postal code.',
  }),
  'GET /v1/terminals': op('listTerminals', 'Postal codes', { success: 'The terminals.' }),
  'GET /v1/customers/{customerNr}': op('getCustomer', 'Customers', {
    description: 'A customer number the key may act for, with its name; others are 404.',
    success: 'The customer.',
  }),

  'POST /ops/scans': op('recordScans', 'Carrier operations', { success: 'The outcome of each event.' }),
  'POST /sandbox/shipments/{shipmentid}/advance': op('advanceShipment', 'Sandbox', {
    success: 'The scans generated.',
  }),

  'POST /admin/customers': op('createCustomer', 'Administration', {
    description: 'Creates a customer number with its name; 409 when the number exists.',
    success: 'The customer.',
  }),
  'PUT /admin/customers/{customerNr}': op('updateCustomer', 'Administration', {
    success: 'The corrected customer.',
  }),
  'GET /admin/customers': op('listCustomers', 'Administration', {
    success: 'A page of customers; `Link: <…>; rel="next"` while there are more.',
  }),
  'POST /admin/api-keys': op('createApiKey', 'Administration', { success: 'The key, shown once.' }),
  'GET /admin/api-keys': op('listApiKeys', 'Administration', {
    success:
      'A page of keys with their names, scopes and customer numbers, never the keys themselves; `Link: <…>; rel="next"` while there are more.',
  }),
  'DELETE /admin/api-keys/{id}': op('revokeApiKey', 'Administration', { success: 'The key is revoked.' }),
  'GET /admin/audit': op('listAdminAudit', 'Administration', {
    success: 'The newest changes first, and the cursor of the next page.',
  }),
  'PUT /admin/postal-codes': op('replacePostalCodes', 'Administration', {
    success: 'What was loaded, withdrawn and retired.',
  }),
  'PUT /admin/terminals': op('replaceTerminals', 'Administration', { success: 'What was loaded.' }),
  'GET /admin/catalog': op('getCatalog', 'Administration', { success: 'The catalogue.' }),
  'PUT /admin/catalog': op('replaceCatalog', 'Administration', { success: 'What was loaded.' }),
  'PUT /admin/pickup-points': op('replacePickupPoints', 'Administration', { success: 'What was loaded.' }),
  'PUT /admin/tariffs': op('loadTariff', 'Administration', { success: 'The loaded version.' }),
  'GET /admin/tariffs': op('listTariffs', 'Administration', {
    description: 'Every loaded tariff version with the date it is in force from.',
    success: 'The tariff versions.',
  }),
  'GET /admin/tariffs/{validFrom}': op('getTariff', 'Administration', {
    description: 'One tariff version in the document form `PUT /admin/tariffs` takes (docs/tariffs.md).',
    success: 'The tariff document.',
  }),
  'DELETE /admin/tariffs/{validFrom}': op('withdrawTariff', 'Administration', {
    success: 'The version is withdrawn.',
  }),
  'PUT /admin/exchange-rates': op('loadExchangeRates', 'Administration', { success: 'The loaded table.' }),
  'GET /admin/exchange-rates': op('listExchangeRates', 'Administration', {
    description: 'Every loaded exchange-rate table (units per 1 EUR) with the date it is in force from.',
    success: 'The exchange-rate tables.',
  }),
  'POST /admin/invoicing/runs': op('runInvoicing', 'Administration', { success: 'The invoices issued.' }),
  'POST /admin/invoicing/credit-notes': op('createCreditNote', 'Administration', {
    success: 'The credit note.',
  }),
};

/** The table's key of a route: its method and its path in OpenAPI form (`{id}`, no trailing slash). */
export const operationKey = (method: string, url: string) => `${method.toUpperCase()} ${openApiPath(url)}`;

/** `/v2/Shipment/:shipmentid` → `/v2/Shipment/{shipmentid}`; the router ignores a trailing slash. */
export const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/(.)\/$/, '$1');

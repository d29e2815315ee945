import { type Account, assertCanActFor, canActFor } from '../auth/access';
import type { DbOrTx } from '../db/client';
import { notFound, Violations } from '../lib/errors';
import { INT32_MAX, isInt32Text } from '../lib/int32';
import { flatMapPages, keysetPages, mapPages, noPages } from '../lib/pages';
import { cm3ToDm3, gramsToKg, mulDivHalfUp, parseScaled, toDecimal } from '../lib/units';
import { daysBetween } from '../schedule/calendar';
import {
  AMOUNT_TYPE_NAMES,
  COST_CODES,
  V1_COST_FIELDS,
  V1_SERVICES_FIELD,
  type V1CostField,
} from './cost-codes';
import { type InvoicingDeps, MAX_REPORT_DAYS, PAYER_ROLES } from './deps';
import { dateField, invoiceReference, isService, kr, krText, midnight, sum, thousandthsText } from './format';
import { createInvoicingStore, type InvoiceRow, type InvoiceShipmentRow, type ReportLineKey } from './store';
import { vatSum } from './vat';

/** The invoice reports (v1, v2), the invoice details and the invoice document, read from issued invoices. */

/**
 * The lines as the reports show them: with the shipment's actual delivery date once it has one. The
 * figures stay as invoiced; the delivery date is no figure, and a run comes long before most
 * deliveries, so the frozen one is nearly always the plan (the invoice document keeps it as issued).
 */
export async function withDeliveries<R extends { line: InvoiceShipmentRow }>(
  booking: InvoicingDeps['booking'],
  rows: R[],
): Promise<R[]> {
  const delivered = await booking.deliveredOn(rows.map((r) => r.line.shipmentId));
  return rows.map((r) => {
    const date = delivered.get(r.line.shipmentId);
    return date ? { ...r, line: { ...r.line, facts: { ...r.line.facts, DeliveryDate: date } } } : r;
  });
}

/** Report lines read, and written to the answer, at a time. */
export const REPORT_PAGE_SIZE = 1000;

type ReportLinesQuery = Omit<
  Parameters<ReturnType<typeof createInvoicingStore>['reportLines']>[0],
  'after' | 'limit'
>;

/**
 * A report's lines with their delivery dates, a page at a time in the report's order (pickup date,
 * shipment, invoice), each page one indexed statement after the last line of the page before: a
 * year's report of a busy customer is read and written in pieces (see `answerArrayPages`).
 */
export function reportPages(
  deps: Pick<InvoicingDeps, 'db' | 'booking'>,
  q: ReportLinesQuery,
  pageSize = REPORT_PAGE_SIZE,
): AsyncGenerator<{ line: InvoiceShipmentRow; invoice: InvoiceRow }[]> {
  return keysetPages(
    async (after: ReportLineKey | undefined, limit) =>
      withDeliveries(deps.booking, await createInvoicingStore(deps.db).reportLines({ ...q, after, limit })),
    ({ line, invoice }) => ({
      pickupDate: line.pickupDate,
      shipmentId: line.shipmentId,
      invoiceNr: invoice.invoiceNr,
    }),
    pageSize,
  );
}

export function interval(
  fromField: string,
  from: string | undefined,
  toField: string,
  to: string | undefined,
  v: Violations,
) {
  const a = dateField(fromField, from, v);
  const b = dateField(toField, to, v);
  if (a && b && v.check(toField, a <= b, `The ${toField} must not be before the ${fromField}.`)) {
    v.check(
      toField,
      daysBetween(a, b) <= MAX_REPORT_DAYS,
      `The interval may span at most ${MAX_REPORT_DAYS} days.`,
    );
  }
  return { from: a ?? '', to: b ?? '' };
}

/** A customer number the spec types as an integer: `01000` is customer 1000 (no number has a leading zero). */
export function customerNrField(field: string, value: string | number | undefined, v: Violations): string {
  const text = value === undefined ? '' : String(value).trim();
  v.check(
    field,
    isInt32Text(text),
    `The ${field} field must be a customer number (a whole number up to ${INT32_MAX}).`,
  );
  return text.replace(/^0+(?=\d)/, '');
}

export interface ReportQuery {
  Customernr?: string;
  Payer?: string;
  PickupTerminal?: string;
  DeliveryTerminal?: string;
  FromPickupDate?: string;
  ToPickupDate?: string;
}

export function checkReportQuery(q: ReportQuery) {
  const v = new Violations();
  const customerNr = customerNrField('Customernr', q.Customernr, v);
  const role = (q.Payer ?? '').trim().toUpperCase();
  v.check('Payer', (PAYER_ROLES as readonly string[]).includes(role), 'The Payer field must be S, M or F.');
  const { from, to } = interval('FromPickupDate', q.FromPickupDate, 'ToPickupDate', q.ToPickupDate, v);
  v.throwIfAny();
  return { customerNr, role, from, to };
}

/** `Customernr` and `Invoicenr` of the by-invoice reads (details, v3 by invoice number). */
export type InvoiceQuery = { Customernr?: string | number; Invoicenr?: string | number };

/** The rules of a by-invoice query: a customer number and an invoice number. */
export function checkInvoiceQuery(q: InvoiceQuery) {
  const v = new Violations();
  const customerNr = customerNrField('Customernr', q.Customernr, v);
  const invoiceText = q.Invoicenr === undefined ? '' : String(q.Invoicenr).trim();
  v.check(
    'Invoicenr',
    isInt32Text(invoiceText),
    `The Invoicenr field must be an invoice number (a whole number up to ${INT32_MAX}).`,
  );
  v.throwIfAny();
  return { customerNr, invoiceNr: Number(invoiceText) };
}

/** The lines of an invoice in order, a page of `REPORT_PAGE_SIZE` at a time (one indexed statement each). */
export const invoiceLinePages = (db: DbOrTx, invoiceNr: number, pageSize = REPORT_PAGE_SIZE) =>
  keysetPages(
    (after: number | undefined, limit) => createInvoicingStore(db).linesPage(invoiceNr, after, limit),
    (line) => line.lineNr,
    pageSize,
  );

/**
 * The invoice a by-invoice read asks for, with its lines a page at a time, when the customer pays
 * it; null for an invoice that does not exist or that another customer pays (those reads answer an
 * empty array).
 */
export async function invoiceOfCustomer(
  db: InvoicingDeps['db'],
  account: Account,
  q: InvoiceQuery,
): Promise<{ invoice: InvoiceRow; pages: AsyncIterable<InvoiceShipmentRow[]> } | null> {
  const { customerNr, invoiceNr } = checkInvoiceQuery(q);
  assertCanActFor(account, customerNr);
  const invoice = await createInvoicingStore(db).invoice(invoiceNr);
  if (!invoice || invoice.customerNr !== customerNr) return null;
  return { invoice, pages: invoiceLinePages(db, invoice.invoiceNr) };
}

/** The VAT rate of a shipment's lines (one rate per shipment: its countries decide). */
const vatPercentOfLines = (lines: readonly { VatPercent: number }[]) => lines[0]?.VatPercent ?? 0;

/** The v2 report record of one invoiced shipment (the v3 record extends it, `reports-v3.ts`). */
export function v2Record(line: InvoiceShipmentRow, invoice: InvoiceRow) {
  const f = line.facts;
  return {
    ShipmentNr: line.shipmentId,
    SenderReference: invoiceReference(f.SenderReference),
    SenderCustomerName: f.SenderName,
    RecipientCustomerName: f.RecipientName,
    DeliveryAddress: f.DeliveryAddress,
    InvoiceCustomerName: invoice.customerName,
    PickupZip: f.PickupZip,
    PickupTerminalId: line.pickupTerminal,
    RecipientZip: f.DeliveryZip,
    RecipientTerminalId: line.deliveryTerminal,
    GoodsTypeCode: f.UnitCode,
    InvoiceLineNr: String(line.lineNr),
    ProductCode: f.ProductCode,
    SenderCustomerNr: Number(f.SenderCustomerNr),
    RecipientCustomerNr: f.RecipientCustomerNr === null ? null : Number(f.RecipientCustomerNr),
    InvoiceCustomerNr: Number(invoice.customerNr),
    NumberOfCollis: f.NumberOfParcels,
    InvoiceNr: invoice.invoiceNr,
    CalculatedWeightKg: f.ChargeableWeightKg,
    RealWeightKg: gramsToKg(f.RealWeightG),
    VolumeDm3: cm3ToDm3(f.VolumeCm3),
    TotalFreightPrice: kr(line.totalOre),
    VatPercent: vatPercentOfLines(line.lines),
    VatKr: kr(vatSum(line.lines)),
    TotalFreightPriceInclVat: kr(line.totalOre + vatSum(line.lines)),
    InvoiceDate: midnight(invoice.invoiceDate),
    DeliveryDate: midnight(f.DeliveryDate),
    PickupDate: midnight(line.pickupDate),
    OptionCodes: f.Services.map((s) => ({ OptionCode: s.Code, OptionName: s.Name })),
    Details: line.lines.map((l) => {
      const type = isService(l.CostTypeCode) ? 'S' : (COST_CODES[l.CostTypeCode]?.amountType ?? 'A');
      return {
        AmountKr: kr(l.AmountOre),
        CostCode: l.CostTypeCode,
        CostName: l.Description,
        AmountTypeCode: type,
        AmountTypeName: AMOUNT_TYPE_NAMES[type],
        VatPercent: l.VatPercent,
        VatKr: kr(l.VatOre),
      };
    }),
  };
}

export function createInvoiceReports({
  db,
  seller,
  booking,
}: Pick<InvoicingDeps, 'db' | 'seller' | 'booking'>) {
  return {
    /** `GET /v1/InvoiceGetInvoiceReport`: one record per invoiced shipment of the payer in its role. */
    async reportV1(account: Account, q: ReportQuery) {
      const { customerNr, role, from, to } = checkReportQuery(q);
      assertCanActFor(account, customerNr);
      const pages = reportPages(
        { db, booking },
        {
          customerNr,
          role,
          from,
          to,
          // Terminal codes are upper case (`OSL`); `osl` names the same terminal.
          pickupTerminal: q.PickupTerminal?.trim().toUpperCase() || undefined,
          deliveryTerminal: q.DeliveryTerminal?.trim().toUpperCase() || undefined,
        },
      );
      return mapPages(pages, ({ line, invoice }) => {
        const f = line.facts;
        const details = Object.fromEntries(V1_COST_FIELDS.map((k) => [k, 0])) as Record<V1CostField, number>;
        for (const l of line.lines) {
          const field = COST_CODES[l.CostTypeCode]?.v1Field ?? V1_SERVICES_FIELD;
          details[field] += l.AmountOre;
        }
        const gross = sum(line.lines, (l) => l.CostTypeCode === 'FREIGHT');
        const other = sum(line.lines, (l) => l.CostTypeCode !== 'FREIGHT' && l.CostTypeCode !== 'DISCOUNT');
        return {
          Waybillnr: line.shipmentId,
          Sender: f.SenderName,
          PickupZip: f.PickupZip,
          Recipient: f.RecipientName,
          DeliveryZip: f.DeliveryZip,
          NumberOfParcels: String(f.NumberOfParcels),
          RealWeight: thousandthsText(f.RealWeightG),
          VolumeDm3: thousandthsText(f.VolumeCm3),
          CalculationWeight: f.ChargeableWeightKg.toFixed(2),
          LoadMeter: f.LoadMeters.toFixed(2),
          GrossShipping: krText(gross),
          OtherIncome: krText(other),
          NetShipping: krText(line.totalOre),
          VatPercent: String(vatPercentOfLines(line.lines)),
          VatKr: krText(vatSum(line.lines)),
          NetShippingInclVat: krText(line.totalOre + vatSum(line.lines)),
          Product: f.ProductCode,
          PaymentCode: line.payerRole,
          InvoiceCustomerNr: invoice.customerNr,
          InvoiceCustomer: invoice.customerName,
          InvoiceNumber: String(invoice.invoiceNr),
          OrderReference: invoiceReference(f.SenderReference),
          DeliveryTerminal: line.deliveryTerminal,
          PickupTerminal: line.pickupTerminal,
          RecipientReference: null,
          DeliveryDate: midnight(f.DeliveryDate),
          PickupDate: midnight(line.pickupDate),
          Split: f.Split,
          Details: [
            {
              Waybillnr: line.shipmentId,
              ...(Object.fromEntries(V1_COST_FIELDS.map((k) => [k, krText(details[k])])) as Record<
                V1CostField,
                string
              >),
            },
          ],
        };
      });
    },

    /** `GET /v2/Invoice/GetInvoiceReport`: the v2 record, one per invoiced shipment, lines itemised. */
    async reportV2(account: Account, q: ReportQuery) {
      const { customerNr, role, from, to } = checkReportQuery(q);
      assertCanActFor(account, customerNr);
      const pages = reportPages({ db, booking }, { customerNr, role, from, to });
      return mapPages(pages, ({ line, invoice }) => v2Record(line, invoice));
    },

    /**
     * An issued invoice with its shipment lines, for `GET /v1/Invoice/{invoicenr}/pdf`. An invoice the
     * key cannot act for is not found, exactly like one that does not exist.
     */
    /**
     * The invoice document's facts, its lines to be read as it is drawn (twice: once to lay it out,
     * once to draw it), so a 90 000-shipment invoice is never in memory whole.
     */
    async document(account: Account, invoiceNr: number) {
      const invoice = await createInvoicingStore(db).invoice(invoiceNr);
      if (!invoice || !canActFor(account, invoice.customerNr)) throw notFound(`Invoice ${invoiceNr}`);
      // The seller it was issued by; an invoice from before that was kept shows today's.
      return { invoice, seller: invoice.seller ?? seller, lines: () => invoiceLinePages(db, invoiceNr) };
    },

    /**
     * `GET /v1/Invoice/GetInvoiceDetails`: one row per cost line of every shipment on the invoice.
     * An invoice that does not exist, or that the customer does not pay, answers an empty array.
     */
    async details(account: Account, q: InvoiceQuery) {
      const found = await invoiceOfCustomer(db, account, q);
      if (!found) return noPages();
      const { invoice, pages } = found;
      // NOK per EUR in millionths, so the euro amounts are computed exactly (no binary floats).
      const rateMicro = invoice.nokPerEur === null ? null : parseScaled(invoice.nokPerEur, 6);
      const rate = rateMicro ? rateMicro / 1_000_000 : null;
      let row = 0;
      return flatMapPages(pages, (line) => {
        const f = line.facts;
        return line.lines.map((l) => {
          row += 1;
          const names = COST_CODES[l.CostTypeCode];
          const serviceName = f.Services.find((s) => s.Code === l.CostTypeCode)?.Name ?? l.Description;
          return {
            InvoiceNr: String(invoice.invoiceNr),
            Consignment: line.shipmentId,
            PickupZip: f.PickupZip,
            DeliveryZip: f.DeliveryZip,
            GoodsTypeCode: f.UnitCode,
            UnitCode: f.UnitCode,
            AmountDescription: l.Description,
            CustomerReference: invoiceReference(f.SenderReference),
            Kid: invoice.kid,
            OrderReference: invoiceReference(f.SenderReference),
            RecipientName: f.RecipientName,
            RowNumber: String(row),
            SenderName: f.SenderName,
            RecipientReference: null,
            AmountTxt: names?.no ?? serviceName,
            AmountTxtEnglish: names?.en ?? serviceName,
            ProductCode: f.ProductCode,
            ProductName: f.ProductName,
            ProductOptions: f.Services.length ? f.Services.map((s) => s.Code).join(',') : null,
            CustomerNr: Number(invoice.customerNr),
            NumberOfParcels: f.NumberOfParcels,
            PickupDate: midnight(line.pickupDate),
            VolumeDm3: cm3ToDm3(f.VolumeCm3),
            RealWeihtKg: gramsToKg(f.RealWeightG),
            CalculationWeightKg: f.ChargeableWeightKg,
            AmountKr: kr(l.AmountOre),
            AdditionEnergyKr: l.CostTypeCode === 'ENERGY' ? kr(l.AmountOre) : 0,
            VatPercent: l.VatPercent,
            VatKr: kr(l.VatOre),
            AmountEuro: rateMicro ? toDecimal(mulDivHalfUp(l.AmountOre, 1_000_000, rateMicro)) : null,
            ExchangeRateEuro: rate,
          };
        });
      });
    },
  };
}

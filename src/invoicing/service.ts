import { type Account, assertCanActFor, canActFor } from '../auth/access';
import { addressLine, displayName, EMPTY_ADDRESS } from '../booking/addresses';
import { type PayerRole, payerOf } from '../booking/rules';
import type { CatalogRules, CatalogService } from '../catalog/service';
import type { CustomerService } from '../customers/service';
import type { Db, Tx } from '../db/client';
import { type DomainEvent, emitEvents } from '../events/outbox';
import { notFound, Violations } from '../lib/errors';
import { kidOf } from '../lib/kid';
import { formatAmount, mulDivHalfUp, parseScaled } from '../pricing/money';
import type { PostalCodeService } from '../reference-data/postal-codes';
import { addDays, dateOfDateTime, daysBetween, osloDateTime } from '../schedule/calendar';
import {
  AMOUNT_TYPE_NAMES,
  COST_CODES,
  V1_COST_FIELDS,
  V1_SERVICES_FIELD,
  type V1CostField,
} from './cost-codes';
import { createInvoicingStore, type Invoiceable, type InvoiceRow } from './store';
import type { InvoicedCostLine, InvoicedShipmentFacts, invoiceShipments } from './tables';

/** Days from the invoice date to the due date. */
export const PAYMENT_TERMS_DAYS = 14;
/** Longest pickup-date interval of one invoice report. */
export const MAX_REPORT_DAYS = 366;

export const PAYER_ROLES: readonly PayerRole[] = ['S', 'M', 'F'];

export interface InvoicingDeps {
  db: Db;
  catalog: CatalogService;
  customers: CustomerService;
  postalCodes: PostalCodeService;
  /** NOK per EUR in force on a date, as a decimal string (null when no rate table is in force). */
  nokPerEur(date: string): Promise<string | null>;
  clock?: () => Date;
}

export interface IssuedInvoice {
  InvoiceNr: number;
  CustomerNr: string;
  Total: number;
}

export interface RunResult {
  RunId: number;
  Invoices: IssuedInvoice[];
}

/** Who pays a shipment and in which role: a third party (F), the recipient (M) or the sender (S). */
const kr = (ore: number) => ore / 100;
/** Thousandths (grams, cm³) as a two-decimal string of the whole unit, rounded half up exactly. */
const thousandthsText = (n: number) => formatAmount(mulDivHalfUp(n, 1, 10));
const krText = formatAmount;
const midnight = (date: string | null) => (date ? `${date}T00:00:00` : null);
/** The sender reference as it is visible on invoices (the spec's 15 characters). */
const invoiceReference = (ref: string | null) => (ref ? ref.slice(0, 15) : null);
const sum = (lines: readonly InvoicedCostLine[], pick: (l: InvoicedCostLine) => boolean = () => true) =>
  lines.reduce((total, l) => (pick(l) ? total + l.AmountOre : total), 0);
const isService = (code: string) => !(code in COST_CODES);

function dateField(field: string, value: string | undefined, v: Violations): string | null {
  if (value === undefined || value === '') {
    v.add(field, `The ${field} field is required.`);
    return null;
  }
  const date = dateOfDateTime(value);
  return v.check(field, date !== null, `The ${field} field is not a valid date.`) ? date : null;
}

function interval(
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

function customerNrField(field: string, value: string | number | undefined, v: Violations): string {
  const text = value === undefined ? '' : String(value).trim();
  v.check(field, /^\d{1,10}$/.test(text), `The ${field} field must be a customer number (1–10 digits).`);
  return text;
}

export type InvoicingService = ReturnType<typeof createInvoicingService>;

export function createInvoicingService(deps: InvoicingDeps) {
  const { db } = deps;
  const clock = deps.clock ?? (() => new Date());

  /** Freezes what the reports show of a shipment, so later changes to registers never alter an invoice. */
  async function factsOf(
    s: Invoiceable,
    rules: CatalogRules,
    terminalOf: (zip: string | null) => Promise<string | null>,
  ) {
    const a = s.addresses;
    const recipient = a.Recipient ?? EMPTY_ADDRESS;
    const pallets = s.unitCode === 'PL';
    const facts: InvoicedShipmentFacts = {
      SenderCustomerNr: s.customerNr,
      SenderName: displayName(a.Pickup ?? EMPTY_ADDRESS),
      RecipientName: displayName(recipient),
      RecipientCustomerNr: s.recipientCustomerId === null ? null : String(s.recipientCustomerId),
      DeliveryAddress: addressLine(a.PickupPoint ?? recipient),
      PickupZip: a.Pickup?.Zip ?? null,
      DeliveryZip: recipient.Zip,
      ProductCode: s.productCode,
      ProductName: rules.product(s.productCode)?.Name ?? s.productCode,
      Services: s.services.map((code) => ({ Code: code, Name: rules.service(code)?.Name ?? code })),
      UnitCode: s.unitCode,
      NumberOfParcels: s.parcelCount,
      NumberOfUnits: s.parcelCount,
      RealWeightG: s.weightG,
      VolumeCm3: s.volumeCm3,
      ChargeableWeightKg: s.price.ChargeableWeightKg,
      // A 120×80 cm pallet takes 0.4 loading metres of a 240 cm wide trailer.
      LoadMeters: pallets ? Math.round(s.parcelCount * 40) / 100 : 0,
      SenderReference: s.senderReference,
      DeliveryDate: s.deliveryDate,
      Split: s.split,
    };
    return {
      facts,
      pickupTerminal: await terminalOf(facts.PickupZip),
      deliveryTerminal: await terminalOf(facts.DeliveryZip),
    };
  }

  /** Zip → serving terminal, looked up once per zip within one run's transaction. */
  function terminalLookup(tx: Tx) {
    const cache = new Map<string, Promise<string | null>>();
    return (zip: string | null) => {
      if (!zip) return Promise.resolve(null);
      let hit = cache.get(zip);
      if (!hit) {
        hit = deps.postalCodes.find(zip, tx).then((row) => row?.terminal ?? null);
        cache.set(zip, hit);
      }
      return hit;
    };
  }

  async function customerName(customerNr: string, tx: Tx): Promise<string> {
    return (await deps.customers.get(customerNr, tx))?.name ?? `Customer ${customerNr}`;
  }

  /** Writes one invoice (or credit note) with its shipment lines and its `invoice.issued` event. */
  async function issue(
    tx: Tx,
    invoice: {
      invoiceNr: number;
      runId: number;
      customerNr: string;
      isCredit: boolean;
      creditsInvoiceNr?: number;
      reason?: string;
      invoiceDate: string;
      nokPerEur: string | null;
    },
    lines: Omit<typeof invoiceShipments.$inferInsert, 'invoiceNr' | 'lineNr' | 'isCredit'>[],
  ): Promise<IssuedInvoice> {
    const store = createInvoicingStore(tx);
    const totalOre = lines.reduce((t, l) => t + l.totalOre, 0);
    const kid = kidOf(invoice.invoiceNr);
    const dueDate = addDays(invoice.invoiceDate, PAYMENT_TERMS_DAYS);
    await store.insertInvoice(
      {
        invoiceNr: invoice.invoiceNr,
        runId: invoice.runId,
        customerNr: invoice.customerNr,
        customerName: await customerName(invoice.customerNr, tx),
        isCredit: invoice.isCredit,
        creditsInvoiceNr: invoice.creditsInvoiceNr ?? null,
        reason: invoice.reason ?? null,
        kid,
        invoiceDate: invoice.invoiceDate,
        dueDate,
        totalOre,
        nokPerEur: invoice.nokPerEur,
      },
      lines.map((l, i) => ({
        ...l,
        invoiceNr: invoice.invoiceNr,
        lineNr: i + 1,
        isCredit: invoice.isCredit,
      })),
    );
    const event: DomainEvent = {
      type: 'invoice.issued',
      customerNr: invoice.customerNr,
      invoiceNr: invoice.invoiceNr,
      data: {
        InvoiceNr: invoice.invoiceNr,
        Kid: kid,
        InvoiceDate: midnight(invoice.invoiceDate),
        DueDate: midnight(dueDate),
        TotalKr: kr(totalOre),
        IsCreditNote: invoice.isCredit,
        CreditsInvoiceNr: invoice.creditsInvoiceNr ?? null,
        ShipmentIds: lines.map((l) => l.shipmentId),
      },
    };
    await emitEvents(tx, [event]);
    return { InvoiceNr: invoice.invoiceNr, CustomerNr: invoice.customerNr, Total: kr(totalOre) };
  }

  const today = () => osloDateTime(clock()).date;

  return {
    /**
     * An invoicing run: every picked-up, not yet invoiced shipment picked up on or before `toDate`
     * is invoiced to its payer, one invoice per payer, numbered without gaps. All or nothing: the
     * run is one transaction, and runs follow one another on the invoice-number lock. `first` runs
     * first inside that transaction (the scheduler claims its tick there, so run and tick commit
     * together; it throws to give the run up).
     */
    async run(input: { ToDate?: string }, first?: (tx: Tx) => Promise<void>): Promise<RunResult> {
      const v = new Violations();
      const toDate = dateField('ToDate', input.ToDate, v);
      v.throwIfAny();
      const invoiceDate = today();
      const nokPerEur = await deps.nokPerEur(invoiceDate);
      // Read before the transaction: every read inside it goes through the transaction itself.
      const rules = await deps.catalog.rules();
      return db.transaction(async (tx) => {
        await first?.(tx);
        const store = createInvoicingStore(tx);
        let last = await store.lockNumbers();
        const runId = await store.insertRun('run', toDate);
        const selected = await store.invoiceable(toDate ?? invoiceDate);
        const byPayer = new Map<string, { role: PayerRole; shipment: Invoiceable }[]>();
        for (const s of selected) {
          const payer = payerOf(s);
          const list = byPayer.get(payer.customerNr) ?? [];
          list.push({ role: payer.role, shipment: s });
          byPayer.set(payer.customerNr, list);
        }
        const terminalOf = terminalLookup(tx);
        const issued: IssuedInvoice[] = [];
        const payers = [...byPayer.keys()].sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
        for (const customerNr of payers) {
          const lines = [];
          for (const { role, shipment } of byPayer.get(customerNr) ?? []) {
            const { facts, pickupTerminal, deliveryTerminal } = await factsOf(shipment, rules, terminalOf);
            const costLines = shipment.price.Lines.map((l) => ({ ...l }));
            lines.push({
              shipmentId: shipment.id,
              payerCustomerNr: customerNr,
              payerRole: role,
              pickupDate: shipment.pickupDate,
              pickupTerminal,
              deliveryTerminal,
              facts,
              lines: costLines,
              totalOre: sum(costLines),
            });
          }
          last += 1;
          issued.push(
            await issue(
              tx,
              { invoiceNr: last, runId, customerNr, isCredit: false, invoiceDate, nokPerEur },
              lines,
            ),
          );
        }
        await store.saveLastNumber(last);
        return { RunId: runId, Invoices: issued };
      });
    },

    /**
     * A credit note for shipments of an issued invoice (all of them when none are named): the same
     * lines with the opposite sign, under a new invoice number. The invoice itself never changes.
     */
    async creditNote(input: {
      InvoiceNr?: number;
      ShipmentIds?: string[];
      Reason?: string;
    }): Promise<IssuedInvoice> {
      const invoiceDate = today();
      const nokPerEur = await deps.nokPerEur(invoiceDate);
      return db.transaction(async (tx) => {
        const store = createInvoicingStore(tx);
        let last = await store.lockNumbers();
        const v = new Violations();
        const original = input.InvoiceNr === undefined ? null : await store.invoice(input.InvoiceNr);
        if (!original) {
          v.add('InvoiceNr', `Invoice ${input.InvoiceNr ?? ''} does not exist.`);
          v.throwIfAny();
          throw new Error('unreachable');
        }
        v.check('InvoiceNr', !original.isCredit, 'A credit note cannot itself be credited.');
        const lines = await store.linesOf(original.invoiceNr);
        const credited = await store.creditedShipments(original.invoiceNr);
        const wanted = input.ShipmentIds?.length
          ? new Set(input.ShipmentIds)
          : new Set(lines.map((l) => l.shipmentId));
        (input.ShipmentIds ?? []).forEach((id, i) => {
          v.check(
            `ShipmentIds[${i}]`,
            lines.some((l) => l.shipmentId === id),
            `Shipment ${id} is not on invoice ${original.invoiceNr}.`,
          );
        });
        [...wanted].forEach((id) => {
          v.check(
            'ShipmentIds',
            !credited.has(id),
            `Shipment ${id} of invoice ${original.invoiceNr} is already credited.`,
          );
        });
        v.throwIfAny();
        const negated = lines
          .filter((l) => wanted.has(l.shipmentId))
          .map(({ invoiceNr: _n, lineNr: _l, isCredit: _c, ...l }) => ({
            ...l,
            lines: l.lines.map((c) => ({ ...c, AmountOre: -c.AmountOre })),
            totalOre: -l.totalOre,
          }));
        const runId = await store.insertRun('credit_note', null);
        last += 1;
        const note = await issue(
          tx,
          {
            invoiceNr: last,
            runId,
            customerNr: original.customerNr,
            isCredit: true,
            creditsInvoiceNr: original.invoiceNr,
            reason: input.Reason?.trim() || 'Correction',
            invoiceDate,
            nokPerEur,
          },
          negated,
        );
        await store.saveLastNumber(last);
        return note;
      });
    },

    /** `GET /v1/InvoiceGetInvoiceReport`: one record per invoiced shipment of the payer in its role. */
    async reportV1(account: Account, q: ReportQuery) {
      const { customerNr, role, from, to } = checkReportQuery(q);
      assertCanActFor(account, customerNr);
      const rows = await createInvoicingStore(db).reportLines({
        customerNr,
        role,
        from,
        to,
        pickupTerminal: q.PickupTerminal?.trim() || undefined,
        deliveryTerminal: q.DeliveryTerminal?.trim() || undefined,
      });
      return rows.map(({ line, invoice }) => {
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
      const rows = await createInvoicingStore(db).reportLines({ customerNr, role, from, to });
      return rows.map(({ line, invoice }) => {
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
          RealWeightKg: f.RealWeightG / 1000,
          VolumeDm3: f.VolumeCm3 / 1000,
          TotalFreightPrice: kr(line.totalOre),
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
            };
          }),
        };
      });
    },

    /**
     * An issued invoice with its shipment lines, for `GET /v1/Invoice/{invoicenr}/pdf`. An invoice the
     * key cannot act for is not found, exactly like one that does not exist.
     */
    async document(account: Account, invoiceNr: number) {
      const store = createInvoicingStore(db);
      const invoice = await store.invoice(invoiceNr);
      if (!invoice || !canActFor(account, invoice.customerNr)) throw notFound(`Invoice ${invoiceNr}`);
      return { invoice, lines: await store.linesOf(invoiceNr) };
    },

    /**
     * `GET /v1/Invoice/GetInvoiceDetails`: one row per cost line of every shipment on the invoice.
     * An invoice that does not exist, or that the customer does not pay, answers an empty array.
     */
    async details(account: Account, q: { Customernr?: string | number; Invoicenr?: string | number }) {
      const v = new Violations();
      const customerNr = customerNrField('Customernr', q.Customernr, v);
      const invoiceText = q.Invoicenr === undefined ? '' : String(q.Invoicenr).trim();
      v.check(
        'Invoicenr',
        /^\d{1,9}$/.test(invoiceText),
        'The Invoicenr field must be an invoice number (an integer).',
      );
      v.throwIfAny();
      assertCanActFor(account, customerNr);
      const store = createInvoicingStore(db);
      const invoice: InvoiceRow | null = await store.invoice(Number(invoiceText));
      if (!invoice || invoice.customerNr !== customerNr) return [];
      const lines = await store.linesOf(invoice.invoiceNr);
      // NOK per EUR in millionths, so the euro amounts are computed exactly (no binary floats).
      const rateMicro = invoice.nokPerEur === null ? null : parseScaled(invoice.nokPerEur, 6);
      const rate = rateMicro ? rateMicro / 1_000_000 : null;
      let row = 0;
      return lines.flatMap((line) => {
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
            VolumeDm3: f.VolumeCm3 / 1000,
            RealWeihtKg: f.RealWeightG / 1000,
            CalculationWeightKg: f.ChargeableWeightKg,
            AmountKr: kr(l.AmountOre),
            AdditionEnergyKr: l.CostTypeCode === 'ENERGY' ? kr(l.AmountOre) : 0,
            AmountEuro: rateMicro ? mulDivHalfUp(l.AmountOre, 1_000_000, rateMicro) / 100 : null,
            ExchangeRateEuro: rate,
          };
        });
      });
    },
  };
}

export interface ReportQuery {
  Customernr?: string;
  Payer?: string;
  PickupTerminal?: string;
  DeliveryTerminal?: string;
  FromPickupDate?: string;
  ToPickupDate?: string;
}

function checkReportQuery(q: ReportQuery) {
  const v = new Violations();
  const customerNr = customerNrField('Customernr', q.Customernr, v);
  const role = (q.Payer ?? '').trim().toUpperCase();
  v.check('Payer', (PAYER_ROLES as readonly string[]).includes(role), 'The Payer field must be S, M or F.');
  const { from, to } = interval('FromPickupDate', q.FromPickupDate, 'ToPickupDate', q.ToPickupDate, v);
  v.throwIfAny();
  return { customerNr, role, from, to };
}

import { addressLine, destinationZip, displayName, EMPTY_ADDRESS } from '../booking/addresses';
import { type PayerRole, payerOf } from '../booking/rules';
import type { CatalogRules } from '../catalog/service';
import type { Tx } from '../db/client';
import { type DomainEvent, emitEvents } from '../events/outbox';
import { Violations } from '../lib/errors';
import { kidOf } from '../lib/kid';
import { loadingMetres } from '../lib/units';
import { addDays, osloDateTime } from '../schedule/calendar';
import type { InvoicingDeps, IssuedInvoice, RunResult } from './deps';
import { PAYMENT_TERMS_DAYS } from './deps';
import { dateField, kr, midnight, sum } from './format';
import { createInvoicingStore } from './store';
import type { InvoicedCostLine, InvoicedShipmentFacts, invoiceShipments } from './tables';
import { allocateVat, atRate, vatPercentOf } from './vat';

/** Issuing invoices: the invoicing run and credit notes, each one transaction on the number lock. */

/** A picked-up shipment waiting to be invoiced: booking's read model, parcels summed. */
type Invoiceable = Awaited<ReturnType<InvoicingDeps['booking']['invoiceableOf']>>[number];

/** What an invoice needs of a postal code: its terminal and its county. */
type Place = { terminal: string | null; countyCode: string | null };
const NOWHERE: Place = { terminal: null, countyCode: null };

/** A 120×80 cm pallet's floor, in cm². */
const PALLET_CM2 = 120 * 80;
/** At most this many shipment ids in an `invoice.issued` event (about 20 KB of them). */
const EVENT_SHIPMENT_IDS = 1000;

/**
 * The shipments an `invoice.issued` event names: the first 1 000, their count and whether that is
 * all of them. Capped so a big payer's event stays within common webhook receivers' body limits (the
 * whole list of 90 000 was 1.9 MB); `GetInvoiceDetails` has every line.
 */
export function eventShipments(ids: readonly string[]) {
  return {
    ShipmentIds: ids.slice(0, EVENT_SHIPMENT_IDS),
    ShipmentCount: ids.length,
    ShipmentIdsTruncated: ids.length > EVENT_SHIPMENT_IDS,
  };
}

export function createInvoiceIssuer(deps: InvoicingDeps) {
  const { db } = deps;
  const clock = deps.clock ?? (() => new Date());

  /** Freezes what the reports show of a shipment, so later changes to registers never alter an invoice. */
  async function factsOf(
    s: Invoiceable,
    rules: CatalogRules,
    placeOf: (zip: string | null) => Promise<Place>,
  ) {
    const a = s.addresses;
    const recipient = a.Recipient ?? EMPTY_ADDRESS;
    const pallets = s.unitCode === 'PL';
    const facts: InvoicedShipmentFacts = {
      SenderCustomerNr: s.customerNr,
      SenderName: displayName(a.Pickup ?? EMPTY_ADDRESS),
      RecipientName: displayName(recipient),
      RecipientCustomerNr: s.recipientCustomerId,
      DeliveryAddress: addressLine(a.PickupPoint ?? recipient),
      PickupZip: a.Pickup?.Zip ?? null,
      // Where the parcels went: the pickup point's zip when there is one (its terminal, its VAT area).
      DeliveryZip: destinationZip({ ...a, Recipient: recipient }),
      PickupCountry: a.Pickup?.Country ?? 'NO',
      DeliveryCountry: recipient.Country ?? 'NO',
      ProductCode: s.productCode,
      ProductName: rules.product(s.productCode)?.Name ?? s.productCode,
      Services: s.services.map((code) => ({ Code: code, Name: rules.service(code)?.Name ?? code })),
      UnitCode: s.unitCode,
      NumberOfParcels: s.parcels.count,
      NumberOfUnits: s.parcels.count,
      RealWeightG: s.parcels.weightG,
      VolumeCm3: s.parcels.volumeCm3,
      ChargeableWeightKg: s.price.ChargeableWeightKg,
      // A 120×80 cm pallet takes 0.4 loading metres of a 240 cm wide trailer.
      LoadMeters: pallets ? loadingMetres(s.parcels.count * PALLET_CM2) : 0,
      SenderReference: s.senderReference,
      DeliveryDate: s.deliveryDate,
      Split: s.parcels.split,
    };
    const [pickup, delivery] = [await placeOf(facts.PickupZip), await placeOf(facts.DeliveryZip)];
    return {
      facts,
      pickupTerminal: pickup.terminal,
      deliveryTerminal: delivery.terminal,
      vatPercent: vatPercentOf(
        { country: facts.PickupCountry, countyCode: pickup.countyCode },
        { country: facts.DeliveryCountry, countyCode: delivery.countyCode },
      ),
    };
  }

  /**
   * Zip → serving terminal and county (the VAT area), looked up once per zip within one run's
   * transaction. A foreign zip finds nothing in the Norwegian register, as it should.
   */
  function placeLookup(tx: Tx) {
    const cache = new Map<string, Promise<Place>>();
    return (zip: string | null): Promise<Place> => {
      if (!zip) return Promise.resolve(NOWHERE);
      let hit = cache.get(zip);
      if (!hit) {
        hit = deps.postalCodes
          .find(zip, tx)
          .then((row) => ({ terminal: row?.terminal ?? null, countyCode: row?.countyCode ?? null }));
        cache.set(zip, hit);
      }
      return hit;
    };
  }

  /** The payer as the invoice names it (frozen: later changes to the register do not alter it). */
  async function buyer(customerNr: string, tx: Tx) {
    const row = await deps.customers.get(customerNr, tx);
    return {
      customerName: row?.name ?? `Customer ${customerNr}`,
      customerOrgNr: row?.orgNr ?? null,
      customerAddress: row?.address ?? null,
    };
  }

  /**
   * Writes one invoice (or credit note) with its shipment lines, their VAT already shared out, and
   * its `invoice.issued` event.
   */
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
    lines: (Omit<typeof invoiceShipments.$inferInsert, 'invoiceNr' | 'lineNr' | 'isCredit' | 'lines'> & {
      lines: InvoicedCostLine[];
    })[],
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
        ...(await buyer(invoice.customerNr, tx)),
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
        ...eventShipments(lines.map((l) => l.shipmentId)),
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
        const due = toDate ?? invoiceDate;
        // Payers first, from the locked ids; then a payer's shipments at a time, so a run holds one
        // payer's shipments and lines, not the whole run's.
        const byPayer = new Map<string, { role: PayerRole; ids: string[] }[]>();
        const locked = await deps.booking.lockInvoiceable(tx, due);
        for (const s of locked) {
          const payer = payerOf(s);
          const roles = byPayer.get(payer.customerNr) ?? [];
          const role = roles.find((r) => r.role === payer.role);
          if (role) role.ids.push(s.id);
          else roles.push({ role: payer.role, ids: [s.id] });
          byPayer.set(payer.customerNr, roles);
        }
        const placeOf = placeLookup(tx);
        const issued: IssuedInvoice[] = [];
        const invoiced: string[] = [];
        const payers = [...byPayer.keys()].sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
        for (const customerNr of payers) {
          const roleOf = new Map<string, PayerRole>();
          for (const { role, ids } of byPayer.get(customerNr) ?? [])
            for (const id of ids) roleOf.set(id, role);
          const shipments = await deps.booking.invoiceableOf(tx, due, [...roleOf.keys()]);
          if (shipments.length === 0) continue;
          const lines = [];
          for (const shipment of shipments) {
            const role = roleOf.get(shipment.id);
            if (!role) throw new Error(`shipment ${shipment.id} was read for payer ${customerNr} unasked`);
            const { facts, pickupTerminal, deliveryTerminal, vatPercent } = await factsOf(
              shipment,
              rules,
              placeOf,
            );
            const costLines = atRate(shipment.price.Lines, vatPercent);
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
            invoiced.push(shipment.id);
          }
          last += 1;
          const taxed = allocateVat(lines.map((l) => l.lines));
          issued.push(
            await issue(
              tx,
              { invoiceNr: last, runId, customerNr, isCredit: false, invoiceDate, nokPerEur },
              lines.map((l, i) => ({ ...l, lines: taxed[i] ?? [] })),
            ),
          );
        }
        await deps.booking.markInvoiced(tx, invoiced);
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
        // Without ShipmentIds: every shipment of the invoice not credited yet (the rest after a partial credit).
        const wanted = input.ShipmentIds
          ? new Set(input.ShipmentIds)
          : new Set(lines.map((l) => l.shipmentId).filter((id) => !credited.has(id)));
        if (!input.ShipmentIds) {
          v.check(
            'InvoiceNr',
            wanted.size > 0,
            `Every shipment of invoice ${original.invoiceNr} is already credited.`,
          );
        }
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
            // `0 -`: a zero amount stays 0, not −0. Each line's VAT is the invoice's negated, not shared
            // out again: crediting shipments one by one then gives back exactly what was charged.
            lines: l.lines.map((c) => ({ ...c, AmountOre: 0 - c.AmountOre, VatOre: 0 - c.VatOre })),
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
  };
}

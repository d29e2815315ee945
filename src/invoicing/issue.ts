import { type PayerRole, payerOf } from '../booking/rules';
import type { CatalogRules } from '../catalog/service';
import type { Tx } from '../db/client';
import { type DomainEvent, emitEvents } from '../events/outbox';
import { Violations } from '../lib/errors';
import { kidOf } from '../lib/kid';
import { addDays, osloDateTime } from '../schedule/calendar';
import type { InvoicingDeps, IssuedInvoice, RunResult } from './deps';
import { PAYMENT_TERMS_DAYS } from './deps';
import { dateField, kr, midnight } from './format';
import { invoiceLinePages } from './reports';
import {
  type PlaceOf,
  placeLookup,
  type ShipmentLine,
  secondReading,
  type UntaxedShipmentLine,
  untaxedLine,
} from './shipment-lines';
import { createInvoicingStore } from './store';
import { vatSharing } from './vat';

/** Issuing invoices: the invoicing run and credit notes, each one transaction on the number lock. */

/** A locked shipment owed by a payer: what orders it on the invoice, and the payer's role. */
type Due = { id: string; pickupDate: string; role: PayerRole };

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A payer's shipments are read, priced and written this many at a time, so a run holds that many
 * whatever the payer's size. Twice over when a payer has more: once to count the VAT of the whole
 * invoice, once to share it out and write the lines (`vatSharing`). A credit note reads the lines
 * of the invoice it credits as many at a time.
 */
export const SHIPMENTS_PER_PASS = 2000;

/** At most this many shipment ids in an `invoice.issued` event (about 20 KB of them). */
const EVENT_SHIPMENT_IDS = 1000;

/** Thrown to roll back a transaction whose day turned while it waited for the invoice-number lock. */
const DAY_TURNED = new Error('the invoice date turned while waiting for the invoice-number lock');

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
  const perPass = deps.shipmentsPerPass ?? SHIPMENTS_PER_PASS;
  if (!Number.isInteger(perPass) || perPass < 1)
    throw new Error(`shipmentsPerPass ${perPass} is not a count`);

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
   * Writes one invoice (or credit note): its head, its shipment lines in order (their VAT already
   * shared out) as `batches` gives them, and its `invoice.issued` event. `totalOre` and
   * `shipmentIds` are the lines' total and shipments, known before the lines are written.
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
    { totalOre, shipmentIds }: { totalOre: number; shipmentIds: readonly string[] },
    batches: AsyncIterable<ShipmentLine[]> | Iterable<ShipmentLine[]>,
  ): Promise<IssuedInvoice> {
    const store = createInvoicingStore(tx);
    const kid = kidOf(invoice.invoiceNr);
    const dueDate = addDays(invoice.invoiceDate, PAYMENT_TERMS_DAYS);
    await store.insertInvoice({
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
      seller: deps.seller,
    });
    let lineNr = 0;
    for await (const lines of batches) {
      await store.insertLines(
        lines.map((l) => ({
          ...l,
          invoiceNr: invoice.invoiceNr,
          lineNr: ++lineNr,
          isCredit: invoice.isCredit,
        })),
      );
    }
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
        ...eventShipments(shipmentIds),
      },
    };
    await emitEvents(tx, [event]);
    return { InvoiceNr: invoice.invoiceNr, CustomerNr: invoice.customerNr, Total: kr(totalOre) };
  }

  /**
   * One payer's invoice of a run, from the shipments it owes (locked by the run), read a pass of
   * `perPass` at a time so the run holds that many whatever the payer's size: a first pass adds up
   * the total and counts the VAT, a second reads them again, shares the VAT out and writes the lines
   * (a payer of one pass keeps its lines between the two). Null when none is still due.
   */
  async function invoicePayer(
    tx: Tx,
    invoice: Parameters<typeof issue>[1],
    owed: Due[],
    run: { due: string; rules: CatalogRules; placeOf: PlaceOf },
  ): Promise<{ issued: IssuedInvoice; shipmentIds: string[] } | null> {
    // The passes in the invoice's line order: by pickup date, then shipment.
    owed.sort((a, b) => compare(a.pickupDate, b.pickupDate) || compare(a.id, b.id));
    const at = new Map(owed.map((d, i) => [d.id, i]));
    const passes: string[][] = [];
    for (let i = 0; i < owed.length; i += perPass) passes.push(owed.slice(i, i + perPass).map((d) => d.id));
    const linesOf = async (ids: string[]) => {
      const lines: UntaxedShipmentLine[] = [];
      for (const shipment of await deps.booking.invoiceableOf(tx, run.due, ids)) {
        const role = owed[at.get(shipment.id) ?? -1]?.role;
        if (!role)
          throw new Error(`shipment ${shipment.id} was read for payer ${invoice.customerNr} unasked`);
        lines.push(
          await untaxedLine(shipment, { customerNr: invoice.customerNr, role }, run.rules, run.placeOf),
        );
      }
      // In the order the passes were cut in, whatever order the database answered in.
      return lines.sort((a, b) => (at.get(a.shipmentId) ?? 0) - (at.get(b.shipmentId) ?? 0));
    };
    const sharing = vatSharing();
    const shipmentIds: string[] = [];
    const totals: number[] = [];
    let kept: UntaxedShipmentLine[] | null = null;
    for (const ids of passes) {
      const lines = await linesOf(ids);
      for (const line of lines) {
        sharing.count(line.lines);
        shipmentIds.push(line.shipmentId);
        totals.push(line.totalOre);
      }
      if (passes.length === 1) kept = lines;
    }
    if (shipmentIds.length === 0) return null;
    const share = sharing.shares();
    async function* taxed() {
      // Under the run's locks the second reading is the first's; were it not, the head would lie.
      const reading = secondReading(invoice.invoiceNr, { shipmentIds, totals });
      for (const ids of passes) {
        const lines = kept ?? (await linesOf(ids));
        lines.forEach(reading.check);
        yield lines.map((line) => ({ ...line, lines: share(line.lines) }));
      }
      reading.done();
    }
    const totalOre = totals.reduce((t, n) => t + n, 0);
    return { issued: await issue(tx, invoice, { totalOre, shipmentIds }, taxed()), shipmentIds };
  }

  const today = () => osloDateTime(clock()).date;

  /**
   * `write` in a transaction that holds the invoice-number lock, given the last number and the day
   * its invoices are dated. The day, and its exchange rate, are read before the transaction; a day
   * that turned while this waited for the lock (behind a run that began after midnight) starts it
   * again, so no invoice is numbered after one of a later date. `first` runs before the lock.
   */
  async function numbered<T>(
    write: (tx: Tx, last: number, day: { invoiceDate: string; nokPerEur: string | null }) => Promise<T>,
    first?: (tx: Tx) => Promise<void>,
  ): Promise<T> {
    for (;;) {
      const invoiceDate = today();
      const nokPerEur = await deps.nokPerEur(invoiceDate);
      try {
        return await db.transaction(async (tx) => {
          await first?.(tx);
          const last = await createInvoicingStore(tx).lockNumbers();
          // Rolled back, `first`'s claim with it, before anything is written.
          if (today() !== invoiceDate) throw DAY_TURNED;
          return write(tx, last, { invoiceDate, nokPerEur });
        });
      } catch (e) {
        if (e !== DAY_TURNED) throw e;
      }
    }
  }

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
      // Read before the transaction: every read inside it goes through the transaction itself.
      const rules = await deps.catalog.rules();
      return numbered(async (tx, lastBefore, { invoiceDate, nokPerEur }) => {
        const store = createInvoicingStore(tx);
        let last = lastBefore;
        const runId = await store.insertRun('run', toDate);
        const due = toDate ?? invoiceDate;
        // Payers first, from the locked rows; then a payer's shipments a pass at a time.
        const byPayer = new Map<string, Due[]>();
        for (const s of await deps.booking.lockInvoiceable(tx, due)) {
          const payer = payerOf(s);
          const owed = byPayer.get(payer.customerNr) ?? [];
          owed.push({ id: s.id, pickupDate: s.pickupDate, role: payer.role });
          byPayer.set(payer.customerNr, owed);
        }
        const placeOf = placeLookup(deps.postalCodes, tx);
        const issued: IssuedInvoice[] = [];
        const invoiced: string[] = [];
        const payers = [...byPayer.keys()].sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
        for (const customerNr of payers) {
          const invoice = { invoiceNr: last + 1, runId, customerNr, isCredit: false, invoiceDate, nokPerEur };
          const owed = byPayer.get(customerNr) ?? [];
          const payer = await invoicePayer(tx, invoice, owed, { due, rules, placeOf });
          if (!payer) continue;
          last += 1;
          issued.push(payer.issued);
          for (const id of payer.shipmentIds) invoiced.push(id);
        }
        await deps.booking.markInvoiced(tx, invoiced);
        await store.saveLastNumber(last);
        return { RunId: runId, Invoices: issued };
      }, first);
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
      return numbered(async (tx, lastBefore, { invoiceDate, nokPerEur }) => {
        const store = createInvoicingStore(tx);
        let last = lastBefore;
        const v = new Violations();
        const original = input.InvoiceNr === undefined ? null : await store.invoice(input.InvoiceNr);
        if (!original) {
          v.add('InvoiceNr', `Invoice ${input.InvoiceNr ?? ''} does not exist.`);
          v.throwIfAny();
          throw new Error('unreachable');
        }
        v.check('InvoiceNr', !original.isCredit, 'A credit note cannot itself be credited.');
        const credited = await store.creditedShipments(original.invoiceNr);
        // Without ShipmentIds: every shipment of the invoice not credited yet (the rest after a partial credit).
        const named = input.ShipmentIds ? new Set(input.ShipmentIds) : null;
        const credits = (line: { shipmentId: string }) =>
          named ? named.has(line.shipmentId) : !credited.has(line.shipmentId);
        // What the note credits and its total from the lines' shipments and totals alone; then the
        // lines themselves a pass at a time as they are written (an issued invoice never changes).
        const { invoiceNr } = original;
        const shipmentIds: string[] = [];
        const totals: number[] = [];
        for (const line of (await store.lineTotals(invoiceNr)).filter(credits)) {
          shipmentIds.push(line.shipmentId);
          totals.push(line.totalOre);
        }
        const onNote = new Set(named ? shipmentIds : []);
        if (!named) {
          v.check(
            'InvoiceNr',
            shipmentIds.length > 0,
            `Every shipment of invoice ${invoiceNr} is already credited.`,
          );
        }
        (input.ShipmentIds ?? []).forEach((id, i) => {
          v.check(`ShipmentIds[${i}]`, onNote.has(id), `Shipment ${id} is not on invoice ${invoiceNr}.`);
        });
        [...(named ?? [])].forEach((id) => {
          v.check(
            'ShipmentIds',
            !credited.has(id),
            `Shipment ${id} of invoice ${invoiceNr} is already credited.`,
          );
        });
        v.throwIfAny();
        async function* negated() {
          const reading = secondReading(invoiceNr, { shipmentIds, totals });
          for await (const page of invoiceLinePages(tx, invoiceNr, perPass)) {
            const lines = page.filter(credits);
            lines.forEach(reading.check);
            yield lines.map(({ invoiceNr: _n, lineNr: _l, isCredit: _c, ...l }) => ({
              ...l,
              // `0 -`: a zero amount stays 0, not −0. Each line's VAT is the invoice's negated, not shared
              // out again: crediting shipments one by one then gives back exactly what was charged.
              lines: l.lines.map((c) => ({ ...c, AmountOre: 0 - c.AmountOre, VatOre: 0 - c.VatOre })),
              totalOre: -l.totalOre,
            }));
          }
          reading.done();
        }
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
          { totalOre: totals.reduce((t, n) => t - n, 0), shipmentIds },
          negated(),
        );
        await store.saveLastNumber(last);
        return note;
      });
    },
  };
}

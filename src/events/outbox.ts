import type { SQL } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { deliveredRows, insertEvents, insertEventsStatement, type NewOutboxEvent } from './store';

export { matchableEvents } from './store';

/** The event kinds of CONTRACT §10; webhooks subscribe to all of them. */
export const EVENT_TYPES = [
  'shipment.created',
  'shipment.updated',
  'shipment.published',
  'shipment.cancelled',
  'parcel.pickedup',
  'parcel.arrived_terminal',
  'parcel.out_for_delivery',
  'parcel.delivered',
  'parcel.delivery_failed',
  'invoice.issued',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const KNOWN = new Set<string>(EVENT_TYPES);

/** One domain event, as booking, operations and invoicing describe it. */
export interface DomainEvent {
  type: EventType;
  /** The customer the event belongs to: the shipment's sender customer, or the invoice's payer. */
  customerNr: string | number;
  /** The GSIN; required for `shipment.*` and `parcel.*` events (it orders their delivery). */
  shipmentId?: string | null;
  /**
   * Parcels the event concerns. For `shipment.*` events give EVERY parcel of the shipment, so a
   * webhook registered on one parcel number (eventValueType 1) hears about its shipment too.
   */
  parcelIds?: readonly string[];
  invoiceNr?: string | number | null;
  /** Facts an integrator needs, with the spec's PascalCase names (`ShipmentStatus`, `Terminal`, ...). */
  data?: Record<string, unknown>;
  /** When it happened (a scan's time); default: the transaction's time. */
  occurredAt?: Date;
}

/**
 * Records domain events in the outbox. Call it INSIDE the transaction that makes the change, so the
 * event exists exactly when the change does; webhook deliveries follow later, from the worker.
 *
 * Order: events of one shipment are delivered in the order of their outbox ids. To make that order
 * the commit order, this takes a transaction-scoped advisory lock per shipment before inserting, so
 * a second transaction emitting for the same shipment waits until the first commits. Emit all of a
 * transaction's events in one call (the locks are then taken in a fixed order, which avoids
 * deadlocks between transactions touching several shipments), after locking your own rows.
 *
 * The delivered `data` is `{CustomerNr, ShipmentId?, ParcelIds?, InvoiceNr?, ...data}`, composed when
 * it is delivered (`eventData`) from the row's columns and the `data` stored beside them.
 *
 * @returns the outbox ids, in the order given.
 */
export async function emitEvents(tx: DbOrTx, events: readonly DomainEvent[]): Promise<number[]> {
  if (events.length === 0) return [];
  const { rows, locks } = outboxRows(events);
  return insertEvents(tx, rows, locks);
}

/**
 * `emitEvents` as one SQL statement, for a caller that writes its change and its events in a single
 * statement (a CTE; booking's new shipment): the same checks, locks and rows. Run it inside the
 * change's transaction or statement, never alone outside one.
 */
export function emitEventsStatement(events: readonly DomainEvent[]): SQL {
  if (events.length === 0) throw new Error('emitEventsStatement needs at least one event');
  const { rows, locks } = outboxRows(events);
  return insertEventsStatement(rows, locks);
}

function outboxRows(events: readonly DomainEvent[]): { rows: NewOutboxEvent[]; locks: string[] } {
  for (const e of events) {
    if (!KNOWN.has(e.type)) throw new Error(`Unknown event type '${e.type}'.`);
    if (e.type !== 'invoice.issued' && !e.shipmentId)
      throw new Error(`Event '${e.type}' needs a shipmentId.`);
  }
  const locks = events.map((e) => e.shipmentId).filter((s): s is string => !!s);
  const rows = events.map((e) => ({
    type: e.type,
    customerNr: String(e.customerNr),
    shipmentId: e.shipmentId ?? null,
    parcelIds: [...(e.parcelIds ?? [])],
    invoiceNr: e.invoiceNr === undefined || e.invoiceNr === null ? null : String(e.invoiceNr),
    // The row's columns are not repeated here: a large shipment's parcel numbers are stored once.
    data: e.data ?? {},
    ...(e.occurredAt ? { occurredAt: e.occurredAt } : {}),
  }));
  return { rows, locks };
}

/** Records one domain event in the outbox inside the caller's transaction; see `emitEvents`. */
export async function emitEvent(tx: DbOrTx, event: DomainEvent): Promise<number> {
  const [id] = await emitEvents(tx, [event]);
  if (id === undefined) throw new Error('outbox insert returned no id');
  return id;
}

/**
 * The delivered `data` of the events `ids`, by id: `{CustomerNr, ShipmentId?, ParcelIds?, InvoiceNr?}`
 * from the row's columns, then the emitter's own facts stored in `data`. (Rows written before the
 * columns stopped being repeated in `data` hold the same values there, in the same order, so they
 * compose to the same object.)
 */
export async function eventData(
  tx: DbOrTx,
  ids: readonly number[],
): Promise<Map<number, Record<string, unknown>>> {
  if (ids.length === 0) return new Map();
  const rows = await deliveredRows(tx, ids);
  return new Map(
    rows.map((r) => {
      const delivered: Record<string, unknown> = { CustomerNr: r.customerNr };
      if (r.shipmentId) delivered.ShipmentId = r.shipmentId;
      if (r.parcelIds.length > 0) delivered.ParcelIds = r.parcelIds;
      if (r.invoiceNr !== null) delivered.InvoiceNr = r.invoiceNr;
      return [r.id, Object.assign(delivered, r.data)];
    }),
  );
}

/**
 * The consumer's side of the outbox (the webhook fan-out): events not yet fanned out, oldest first,
 * locked for the caller's transaction; marking them fanned out; pruning fanned-out ones.
 */
export {
  deleteFannedOutBefore,
  markFannedOut,
  type PendingEvent,
  pendingEvents,
} from './store';

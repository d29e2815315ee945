import type { Account } from '../auth/access';
import type { BookingService } from '../booking/service';
import type { Db } from '../db/client';
import { type DomainEvent, type EventType, emitEvents } from '../events/outbox';
import { formatOslo, parseOsloDateTime } from '../lib/oslo-time';
import { createOperationsStore } from './store';

export const SCAN_TYPES = [
  'PickedUp',
  'ArrivedAtTerminal',
  'OutForDelivery',
  'Delivered',
  'DeliveryFailed',
  'ReturnedToSender',
] as const;
export type ScanType = (typeof SCAN_TYPES)[number];

/** The webhook event of each scan type; a return to sender has no event kind of its own in CONTRACT §10. */
const OUTBOX_TYPE: Partial<Record<ScanType, EventType>> = {
  PickedUp: 'parcel.pickedup',
  ArrivedAtTerminal: 'parcel.arrived_terminal',
  OutForDelivery: 'parcel.out_for_delivery',
  Delivered: 'parcel.delivered',
  DeliveryFailed: 'parcel.delivery_failed',
};

/** How far in the future a scan's time may be (scanner clocks drift). */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

/**
 * How long before its shipment was published a scan's time may be: a parcel handed over before the
 * customer's booking arrived is scanned again once it has, with its first scan's time. Anything
 * older is a wrong clock or a wrong parcel number, and would move the pickup date into the past.
 */
export const LATE_BOOKING_MS = 24 * 3_600_000;

export interface ScanInput {
  EventId: string;
  ParcelId: string;
  EventType: string;
  Time: string;
  Terminal?: string;
}

export interface ScanResult {
  EventId: string;
  Status: 'accepted' | 'duplicate' | 'rejected';
  Errors: string[];
}

export interface OperationsDeps {
  db: Db;
  /** The shipments and parcels the scans are about (booking's read model). */
  booking: Pick<
    BookingService,
    'parcelsForScans' | 'lockForScans' | 'recordScans' | 'tracking' | 'parcelTracking'
  >;
  /** Known terminal codes (the routing data). */
  terminalCodes: () => Promise<ReadonlySet<string>>;
  clock?: () => Date;
}

const duplicate = (e: ScanInput): ScanResult => ({ EventId: e.EventId, Status: 'duplicate', Errors: [] });
const reusedId = (e: ScanInput): ScanResult => ({
  EventId: e.EventId,
  Status: 'rejected',
  Errors: [
    `EventId ${e.EventId} was already used for another event (a resent event repeats its ParcelId, EventType and Time).`,
  ],
});

/**
 * What a resent event repeats: the same parcel, type and instant. The terminal, optional, may be
 * left out of a resend.
 */
const sameEvent = (
  a: { parcelId: string; eventType: string; time: Date | null },
  b: { parcelId: string; eventType: string; time: Date | null },
) => a.parcelId === b.parcelId && a.eventType === b.eventType && a.time?.getTime() === b.time?.getTime();
const factsOf = (e: ScanInput, time: Date | null) => ({ parcelId: e.ParcelId, eventType: e.EventType, time });

export type OperationsService = ReturnType<typeof createOperationsService>;

export function createOperationsService(deps: OperationsDeps) {
  const { db } = deps;
  const clock = deps.clock ?? (() => new Date());

  /**
   * The scans of the parcels in view (all of the shipment's, or the one a parcel read asks for),
   * each parcel's in time order.
   */
  async function eventsView(
    shipment: { shipmentId: string; pickedUpAt: Date | null; parcelIds: string[] },
    onlyParcels?: string[],
  ) {
    const byParcel = new Map<
      string,
      { EventId: string; EventType: string; Time: string; Terminal: string | null }[]
    >();
    for (const s of await createOperationsStore(db).scansOf(shipment.shipmentId, onlyParcels)) {
      const events = byParcel.get(s.parcelId) ?? [];
      events.push({
        EventId: s.eventId,
        EventType: s.eventType,
        Time: formatOslo(s.time),
        Terminal: s.terminal,
      });
      byParcel.set(s.parcelId, events);
    }
    return {
      ShipmentId: shipment.shipmentId,
      PickedupDate: shipment.pickedUpAt ? formatOslo(shipment.pickedUpAt) : null,
      Parcels: shipment.parcelIds.map((parcelId) => ({
        ParcelId: parcelId,
        Events: byParcel.get(parcelId) ?? [],
      })),
    };
  }

  return {
    /**
     * Records a batch of scans. Each event is judged on its own: accepted, duplicate (its EventId was
     * seen before) or rejected with reasons; one bad event does not reject the others. Accepted events,
     * their effects (first pickup) and their outbox rows are written in one transaction.
     */
    async recordScans(
      batch: ScanInput[],
      mayScan: (customerNr: string) => boolean = () => true,
    ): Promise<ScanResult[]> {
      const now = clock().getTime();
      const ids = [...new Set(batch.map((e) => e.ParcelId))];
      const known = await deps.booking.parcelsForScans(ids);
      // A parcel the caller may not scan is as unknown as one that does not exist.
      const parcelOf = new Map(known.filter((k) => mayScan(k.customerNr)).map((k) => [k.parcelId, k]));
      const terminals = await deps.terminalCodes();

      const results: ScanResult[] = [];
      let accepted: {
        input: ScanInput;
        time: Date;
        shipmentId: string;
        customerNr: string;
        index: number;
      }[] = [];
      // Each accepted event's facts and place in the answer, by EventId; and the places of its
      // repeats in this batch, which share its fate (it may yet be refused in the transaction).
      const seen = new Map<string, ReturnType<typeof factsOf> & { index: number }>();
      const repeats: { index: number; of: number }[] = [];
      batch.forEach((e, index) => {
        const errors: string[] = [];
        const time = parseOsloDateTime(e.Time);
        if (!time) errors.push('Time is not a valid date and time.');
        else if (time.getTime() > now + FUTURE_TOLERANCE_MS)
          errors.push('Time is more than 5 minutes in the future.');
        if (!(SCAN_TYPES as readonly string[]).includes(e.EventType)) {
          errors.push(`EventType must be one of ${SCAN_TYPES.join(', ')}.`);
        }
        if (e.Terminal !== undefined && !terminals.has(e.Terminal))
          errors.push(`Terminal ${e.Terminal} is not known.`);
        const parcel = parcelOf.get(e.ParcelId);
        if (!parcel) errors.push(`Parcel ${e.ParcelId} is not known.`);
        else if (parcel.cancelledAt) errors.push(`Shipment ${parcel.shipmentId} is cancelled.`);
        else if (parcel.status !== 2) errors.push(`Shipment ${parcel.shipmentId} is not published.`);
        else if (
          time &&
          parcel.publishedAt &&
          time.getTime() < parcel.publishedAt.getTime() - LATE_BOOKING_MS
        ) {
          errors.push(
            `Time is more than 24 hours before shipment ${parcel.shipmentId} was published (${formatOslo(parcel.publishedAt)}).`,
          );
        }
        // An event's own faults first; then, a duplicate repeats an event accepted earlier in the
        // batch (a rejected one does not count).
        if (errors.length > 0 || !time || !parcel) {
          results.push({ EventId: e.EventId, Status: 'rejected', Errors: errors });
          return;
        }
        const earlier = seen.get(e.EventId);
        if (earlier !== undefined) {
          const same = sameEvent(earlier, factsOf(e, time));
          if (same) repeats.push({ index: results.length, of: earlier.index });
          results.push(same ? duplicate(e) : reusedId(e));
          return;
        }
        seen.set(e.EventId, { ...factsOf(e, time), index });
        results.push({ EventId: e.EventId, Status: 'accepted', Errors: [] });
        accepted.push({
          input: e,
          time,
          shipmentId: parcel.shipmentId,
          customerNr: parcel.customerNr,
          index,
        });
      });
      if (accepted.length === 0) return results;

      await db.transaction(async (tx) => {
        // Lock the shipments, in id order (so concurrent batches never deadlock), and look again:
        // a shipment cancelled since the check above takes no events — cancel and first pickup
        // exclude each other.
        const cancelled = await deps.booking.lockForScans(
          tx,
          accepted.map((a) => a.shipmentId),
        );
        accepted = accepted.filter((a) => {
          if (!cancelled.has(a.shipmentId)) return true;
          results[a.index] = {
            EventId: a.input.EventId,
            Status: 'rejected',
            Errors: [`Shipment ${a.shipmentId} is cancelled.`],
          };
          return false;
        });
        if (accepted.length === 0) return;
        const fresh = await createOperationsStore(tx).insertScans(
          accepted.map((a) => ({
            eventId: a.input.EventId,
            parcelId: a.input.ParcelId,
            shipmentId: a.shipmentId,
            eventType: a.input.EventType,
            time: a.time,
            terminal: a.input.Terminal ?? null,
          })),
        );
        // An EventId stored before repeats that event only if all its facts are the same: a scanner
        // resending a batch. Another event under a used id is refused, never silently dropped.
        const repeated = accepted.filter((a) => !fresh.has(a.input.EventId));
        const storedScans = await createOperationsStore(tx).scansByEventId(
          repeated.map((a) => a.input.EventId),
        );
        for (const a of repeated) {
          const stored = storedScans.get(a.input.EventId);
          results[a.index] =
            stored && sameEvent(stored, factsOf(a.input, a.time)) ? duplicate(a.input) : reusedId(a.input);
        }
        const stored = accepted.filter((a) => fresh.has(a.input.EventId));

        // A parcel's pickup is its earliest scan of any kind: booking keeps the earliest so far and
        // takes each of these that is earlier. The first delivery is booking's fact too.
        const facts = (a: (typeof stored)[number]) => ({
          parcelId: a.input.ParcelId,
          shipmentId: a.shipmentId,
          time: a.time,
        });
        await deps.booking.recordScans(tx, {
          scans: stored.map(facts),
          deliveries: stored.filter((a) => a.input.EventType === 'Delivered').map(facts),
        });

        const events: DomainEvent[] = stored.flatMap((a) => {
          const type = OUTBOX_TYPE[a.input.EventType as ScanType];
          return type
            ? [
                {
                  type,
                  customerNr: a.customerNr,
                  shipmentId: a.shipmentId,
                  parcelIds: [a.input.ParcelId],
                  occurredAt: a.time,
                  data: {
                    ParcelId: a.input.ParcelId,
                    EventType: a.input.EventType,
                    Time: formatOslo(a.time),
                    Terminal: a.input.Terminal ?? null,
                  },
                },
              ]
            : [];
        });
        await emitEvents(tx, events);
      });
      // A repeat of an event refused in the transaction (its id used before, its shipment cancelled)
      // was not stored either: "duplicate" would tell the scanner it was.
      for (const r of repeats) {
        const first = results[r.of];
        if (first?.Status === 'rejected') results[r.index] = { ...first, Errors: [...first.Errors] };
      }
      return results;
    },

    /** `GET /v1/Shipment/{id}/events`: a shipment's scans per parcel, ordered by time. */
    eventsOf: async (account: Account, shipmentId: string) =>
      eventsView(await deps.booking.tracking(account, shipmentId)),

    /** The events of one parcel, by its number, in the shape of its shipment's (that parcel alone). */
    parcelEventsOf: async (account: Account, parcelId: string) => {
      const parcel = await deps.booking.parcelTracking(account, parcelId);
      return eventsView(parcel, parcel.parcelIds);
    },

    /** Scan types seen for each parcel of a shipment (for the sandbox simulator). */
    scanTypesOf: (shipmentId: string) => createOperationsStore(db).scanTypesOf(shipmentId),
  };
}

import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { type Account, canActFor } from '../auth/access';
import { parcels, shipments } from '../booking/tables';
import type { Db } from '../db/client';
import { type DomainEvent, type EventType, emitEvents } from '../events/outbox';
import { notFound } from '../lib/errors';
import { formatOslo, parseOsloDateTime } from '../lib/oslo-time';
import { scanEvents } from './tables';

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
  /** Known terminal codes (the routing data). */
  terminalCodes: () => Promise<ReadonlySet<string>>;
  clock?: () => Date;
}

export type OperationsService = ReturnType<typeof createOperationsService>;

export function createOperationsService(deps: OperationsDeps) {
  const { db } = deps;
  const clock = deps.clock ?? (() => new Date());

  return {
    /**
     * Records a batch of scans. Each event is judged on its own: accepted, duplicate (its EventId was
     * seen before) or rejected with reasons; one bad event does not reject the others. Accepted events,
     * their effects (first pickup) and their outbox rows are written in one transaction.
     */
    async recordScans(batch: ScanInput[]): Promise<ScanResult[]> {
      const now = clock().getTime();
      const ids = [...new Set(batch.map((e) => e.ParcelId))];
      const known = ids.length
        ? await db
            .select({
              parcelId: parcels.parcelId,
              shipmentId: shipments.id,
              customerNr: shipments.customerNr,
              status: shipments.status,
              cancelledAt: shipments.cancelledAt,
            })
            .from(parcels)
            .innerJoin(shipments, eq(shipments.id, parcels.shipmentId))
            .where(inArray(parcels.parcelId, ids))
        : [];
      const parcelOf = new Map(known.map((k) => [k.parcelId, k]));
      const terminals = await deps.terminalCodes();

      const results: ScanResult[] = [];
      let accepted: {
        input: ScanInput;
        time: Date;
        shipmentId: string;
        customerNr: string;
        index: number;
      }[] = [];
      const seen = new Set<string>();
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
        // A duplicate repeats an event accepted earlier in the batch; a rejected one does not count.
        if (seen.has(e.EventId)) {
          results.push({ EventId: e.EventId, Status: 'duplicate', Errors: [] });
          return;
        }
        if (errors.length > 0 || !time || !parcel) {
          results.push({ EventId: e.EventId, Status: 'rejected', Errors: errors });
          return;
        }
        seen.add(e.EventId);
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
        const ids = [...new Set(accepted.map((a) => a.shipmentId))].sort();
        const locked = await tx
          .select({ id: shipments.id, cancelledAt: shipments.cancelledAt })
          .from(shipments)
          .where(inArray(shipments.id, ids))
          .orderBy(asc(shipments.id))
          .for('update');
        const cancelled = new Set(locked.filter((r) => r.cancelledAt).map((r) => r.id));
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
        const inserted = await tx
          .insert(scanEvents)
          .values(
            accepted.map((a) => ({
              eventId: a.input.EventId,
              parcelId: a.input.ParcelId,
              shipmentId: a.shipmentId,
              eventType: a.input.EventType,
              time: a.time,
              terminal: a.input.Terminal ?? null,
            })),
          )
          .onConflictDoNothing()
          .returning({ eventId: scanEvents.eventId });
        const fresh = new Set(inserted.map((r) => r.eventId));
        for (const a of accepted) {
          if (!fresh.has(a.input.EventId))
            results[a.index] = { EventId: a.input.EventId, Status: 'duplicate', Errors: [] };
        }
        const stored = accepted.filter((a) => fresh.has(a.input.EventId));

        // The first pickup scan sets the pickup time and date and closes the cancellation window.
        const firstPickup = new Map<string, Date>();
        for (const a of stored) {
          if (a.input.EventType !== 'PickedUp') continue;
          const t = firstPickup.get(a.shipmentId);
          if (!t || a.time < t) firstPickup.set(a.shipmentId, a.time);
        }
        for (const [shipmentId, time] of firstPickup) {
          const at = time.toISOString();
          await tx
            .update(shipments)
            .set({
              pickedUpAt: sql`least(${shipments.pickedUpAt}, ${at}::timestamptz)`,
              pickupDate: sql`(least(${shipments.pickedUpAt}, ${at}::timestamptz) at time zone 'Europe/Oslo')::date`,
              version: sql`${shipments.version} + 1`,
            })
            .where(eq(shipments.id, shipmentId));
        }

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
      return results;
    },

    /** `GET /v1/Shipment/{id}/events`: a shipment's scans per parcel, ordered by time. */
    async eventsOf(account: Account, shipmentId: string) {
      const [row] = await db.select().from(shipments).where(eq(shipments.id, shipmentId));
      if (!row || row.cancelledAt || !canActFor(account, row.customerNr))
        throw notFound(`Shipment ${shipmentId}`);
      const list = await db
        .select({ parcelId: parcels.parcelId })
        .from(parcels)
        .where(eq(parcels.shipmentId, shipmentId))
        .orderBy(asc(parcels.seq));
      const scans = await db
        .select()
        .from(scanEvents)
        .where(and(eq(scanEvents.shipmentId, shipmentId)))
        .orderBy(asc(scanEvents.time), asc(scanEvents.receivedAt));
      return {
        ShipmentId: shipmentId,
        PickedupDate: row.pickedUpAt ? formatOslo(row.pickedUpAt) : null,
        Parcels: list.map(({ parcelId }) => ({
          ParcelId: parcelId,
          Events: scans
            .filter((s) => s.parcelId === parcelId)
            .map((s) => ({
              EventId: s.eventId,
              EventType: s.eventType,
              Time: formatOslo(s.time),
              Terminal: s.terminal,
            })),
        })),
      };
    },

    /** Scan types seen for each parcel of a shipment (for the sandbox simulator). */
    async scanTypesOf(shipmentId: string): Promise<Set<string>> {
      const rows = await db
        .selectDistinct({ t: scanEvents.eventType })
        .from(scanEvents)
        .where(eq(scanEvents.shipmentId, shipmentId));
      return new Set(rows.map((r) => r.t));
    },
  };
}

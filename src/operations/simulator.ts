import type { Account } from '../auth/access';
import type { BookingService } from '../booking/service';
import { DomainError } from '../lib/errors';
import type { PostalCodeService } from '../reference-data/postal-codes';
import type { OperationsService, ScanType } from './service';

/** The carrier's next scan after each one, in a parcel's normal life. */
const LIFE: readonly ScanType[] = ['PickedUp', 'ArrivedAtTerminal', 'OutForDelivery', 'Delivered'];

export type Simulator = ReturnType<typeof createSimulator>;

/**
 * The sandbox simulator (never in production): makes the scan a carrier would make next, through the
 * same `recordScans` as real scanners, for the parcels furthest behind: parcels scanned apart (one
 * picked up by a real scan, another not) are brought level first, and it is delivered when all are.
 */
export function createSimulator(deps: {
  booking: BookingService;
  operations: OperationsService;
  postalCodes: PostalCodeService;
  clock?: () => Date;
}) {
  const clock = deps.clock ?? (() => new Date());
  return {
    async advance(account: Account, shipmentId: string) {
      const { records } = await deps.booking.read(account, shipmentId);
      const first = records[0];
      if (first?.ParcelStatus !== 2) {
        throw new DomainError('conflict', 'not_published', `Shipment ${shipmentId} is not published.`);
      }
      const seen = await deps.operations.scanTypesOf(shipmentId);
      // Each parcel's place in its life: the first scan it has not had (4 when delivered).
      const stageOf = (parcelId: string) => {
        const stage = LIFE.findIndex((t) => !seen.get(parcelId)?.has(t));
        return stage < 0 ? LIFE.length : stage;
      };
      const behind = Math.min(...records.map((r) => stageOf(r.ParcelId)));
      const next = LIFE[behind];
      if (!next)
        throw new DomainError('conflict', 'delivered', `Shipment ${shipmentId} is already delivered.`);
      const zipOf = (type: number) => first.Addresses.find((a) => a.AddressTypeId === type)?.Zip ?? null;
      const terminalOf = async (zip: string | null) =>
        zip ? ((await deps.postalCodes.find(zip))?.terminal ?? undefined) : undefined;
      // Picked up at the sender's terminal; after that at the destination's: the pickup point's (4)
      // when there is one, as the label routes it, else the recipient's (2).
      const terminal = await terminalOf(next === 'PickedUp' ? zipOf(1) : (zipOf(4) ?? zipOf(2)));
      // With its zone: an Oslo local time names two instants once a year.
      const time = clock().toISOString();
      const moved = records.filter((r) => stageOf(r.ParcelId) === behind);
      const results = await deps.operations.recordScans(
        moved.map((r) => ({
          EventId: `sandbox-${shipmentId}-${next}-${r.ParcelId}`,
          ParcelId: r.ParcelId,
          EventType: next,
          Time: time,
          ...(terminal ? { Terminal: terminal } : {}),
        })),
      );
      // Another advance of the same shipment made this step between our read and our write (its
      // event ids are ours, at another time, so ours were refused): a conflict, not a failed scan.
      if (results.every((r) => r.Status !== 'accepted')) {
        const now = await deps.operations.scanTypesOf(shipmentId);
        if (moved.every((r) => now.get(r.ParcelId)?.has(next))) {
          throw new DomainError(
            'conflict',
            'advanced_concurrently',
            `Shipment ${shipmentId} was moved on to ${next} by another request at the same time; read it again.`,
          );
        }
      }
      return { EventType: next, Results: results };
    },
  };
}

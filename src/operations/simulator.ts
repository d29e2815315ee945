import type { Account } from '../auth/access';
import type { BookingService } from '../booking/service';
import { DomainError } from '../lib/errors';
import type { PostalCodeService } from '../reference-data/postal-codes';
import type { OperationsService, ScanType } from './service';

/** The carrier's next scan after each one, in a parcel's normal life. */
const LIFE: readonly ScanType[] = ['PickedUp', 'ArrivedAtTerminal', 'OutForDelivery', 'Delivered'];

export type Simulator = ReturnType<typeof createSimulator>;

/**
 * The sandbox simulator (never in production): makes the scans a carrier would make next for every
 * parcel of a published shipment, through the same `recordScans` as real scanners.
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
      const next = LIFE.find((t) => !seen.has(t));
      if (!next)
        throw new DomainError('conflict', 'delivered', `Shipment ${shipmentId} is already delivered.`);
      const zipOf = (type: number) => first.Addresses.find((a) => a.AddressTypeId === type)?.Zip ?? null;
      const terminalOf = async (zip: string | null) =>
        zip ? ((await deps.postalCodes.find(zip))?.terminal ?? undefined) : undefined;
      const terminal = next === 'PickedUp' ? await terminalOf(zipOf(1)) : await terminalOf(zipOf(2));
      // With its zone: an Oslo local time names two instants once a year.
      const time = clock().toISOString();
      const results = await deps.operations.recordScans(
        records.map((r) => ({
          EventId: `sandbox-${shipmentId}-${next}-${r.ParcelId}`,
          ParcelId: r.ParcelId,
          EventType: next,
          Time: time,
          ...(terminal ? { Terminal: terminal } : {}),
        })),
      );
      return { EventType: next, Results: results };
    },
  };
}

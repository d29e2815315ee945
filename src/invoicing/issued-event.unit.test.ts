import { describe, expect, test } from 'vitest';
import { eventShipments } from './issue';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `7090001${String(i).padStart(10, '0')}`);

describe('the shipments an invoice.issued event names', () => {
  test('all of them, up to 1 000', () => {
    expect(eventShipments(ids(1000))).toEqual({
      ShipmentIds: ids(1000),
      ShipmentCount: 1000,
      ShipmentIdsTruncated: false,
    });
  });

  test('beyond 1 000, the first 1 000, the count and the mark', () => {
    const all = ids(90_000);
    const event = eventShipments(all);
    expect(event.ShipmentIds).toEqual(all.slice(0, 1000));
    expect(event.ShipmentCount).toBe(90_000);
    expect(event.ShipmentIdsTruncated).toBe(true);
    expect(JSON.stringify(event).length).toBeLessThan(25_000);
  });
});

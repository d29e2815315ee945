import { expect, test } from 'vitest';
import { STATUS } from './rules';
import type { ShipmentUpdate } from './schemas';
import type { Checked } from './validate';
import { writesOneStatement } from './write';

// Only a write that is one statement may run without a transaction (service.ts): anything that
// locks, updates or writes a second shipment must keep its BEGIN and COMMIT.

const body = (fields: Partial<ShipmentUpdate>) =>
  ({ CustomerId: '1000', Parcels: [], ...fields }) as ShipmentUpdate;
const checked = (status: number | null) => ({ status }) as Checked;

test('a new shipment is written by one statement, whatever its status', () => {
  for (const status of [null, STATUS.Draft, STATUS.ReadyForPublish, STATUS.Published])
    expect(writesOneStatement(body({}), checked(status))).toBe(true);
  // The return shipment is made only when publishing.
  expect(
    writesOneStatement(body({ ShouldGenerateReturnShipment: true }), checked(STATUS.ReadyForPublish)),
  ).toBe(true);
});

test('a named shipment (it may exist: lock, update) or a published one with its return is not', () => {
  expect(writesOneStatement(body({ ShipmentId: '70900010000000126' }), checked(STATUS.Published))).toBe(
    false,
  );
  expect(writesOneStatement(body({ ShouldGenerateReturnShipment: true }), checked(STATUS.Published))).toBe(
    false,
  );
});

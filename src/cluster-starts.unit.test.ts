import { expect, test } from 'vitest';
import { failedStartsInARow, WORKER_QUICK_FAIL_MS } from './cluster-starts';

// The cluster primary gives up after 5 failed starts in a row (server.ts), so that a worker that
// cannot start stops the host instead of flapping unseen.

test('a worker that exits before it listened failed to start, however long it tried', () => {
  // Once counted from the fork: on a loaded host a start took 17 s to fail on a taken port, no
  // failure was counted, and the primary forked its workers again and again for as long as it ran.
  expect(failedStartsInARow({ index: 0, listenedAt: null, quickFails: 2 }, Date.now())).toBe(3);
});

test('a worker that exits soon after it listened failed to start; one that served a while starts the count again', () => {
  const listenedAt = 1_000_000;
  const place = { index: 1, listenedAt, quickFails: 4 };
  expect(failedStartsInARow(place, listenedAt + 50)).toBe(5);
  expect(failedStartsInARow(place, listenedAt + WORKER_QUICK_FAIL_MS)).toBe(0);
});

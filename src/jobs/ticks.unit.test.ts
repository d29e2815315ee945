import { Cron } from 'croner';
import { expect, test } from 'vitest';
import { scheduledTick } from './ticks';

test('a firing belongs to its scheduled tick, whether the host got to it early or late', () => {
  const cron = new Cron('*/5 * * * * *', { timezone: 'Europe/Oslo', paused: true });
  const tick = '2026-11-25T03:44:10.000Z';
  for (const firedAt of ['03:44:09.800', '03:44:10.000', '03:44:10.004', '03:44:10.700', '03:44:13.900']) {
    expect(scheduledTick(cron, new Date(`2026-11-25T${firedAt}Z`)).toISOString()).toBe(tick);
  }
  const nightly = new Cron('0 2 * * *', { timezone: 'Europe/Oslo', paused: true });
  expect(scheduledTick(nightly, new Date('2026-11-25T01:00:01.300Z')).toISOString()).toBe(
    '2026-11-25T01:00:00.000Z',
  );
});

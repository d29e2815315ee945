import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import { describe, expect, test } from 'vitest';
import { createGrantLimiter, type Decision, grantSize, type PointStore } from './rate-limit';

/** Three processes' limiters over one shared count, as three hosts over one PostgreSQL. */
function fleet(perMinute: number, hosts: number, grant?: number) {
  const shared = new RateLimiterMemory({ points: perMinute, duration: 60 });
  let roundTrips = 0;
  const store: PointStore = {
    consume: (key: string, points: number): Promise<RateLimiterRes> => {
      roundTrips += 1;
      return shared.consume(key, points);
    },
  };
  const limiters = Array.from({ length: hosts }, () => createGrantLimiter({ perMinute, store, grant }));
  return { limiters, roundTrips: () => roundTrips };
}

const decide = async (d: Decision | Promise<Decision>) => d;

describe('grant limiter', () => {
  test('three processes sharing one count admit the limit once, not three times', async () => {
    const { limiters } = fleet(300, 3);
    let admitted = 0;
    const refused: Decision[] = [];
    for (let i = 0; i < 1200; i++) {
      const d = await decide(limiters[i % 3]?.take('key:a') ?? Promise.reject(new Error('no limiter')));
      if (d.allowed) admitted += 1;
      else refused.push(d);
    }
    // Never over the limit; under it by at most the points stranded in the other processes' grants.
    expect(admitted).toBeLessThanOrEqual(300);
    expect(admitted).toBeGreaterThanOrEqual(300 - 3 * grantSize(300));
    // Retry-After comes from the shared window: every process counts down to the same end.
    for (const d of refused) {
      expect(d.remaining).toBe(0);
      expect(d.resetMs).toBeGreaterThan(55_000);
      expect(d.resetMs).toBeLessThanOrEqual(60_000);
    }
  });

  test('requests that find points in the grant are decided without a round trip or a promise', async () => {
    const { limiters, roundTrips } = fleet(10_000, 1);
    const limiter = limiters[0];
    if (!limiter) throw new Error('no limiter');
    expect(limiter.grant).toBe(100);
    await decide(limiter.take('key:b'));
    let synchronous = 0;
    for (let i = 0; i < 99; i++) if (!(limiter.take('key:b') instanceof Promise)) synchronous += 1;
    expect(synchronous).toBe(99);
    expect(roundTrips()).toBe(1);
  });

  test('concurrent requests of one key share one round trip, and the last points of a window are given out', async () => {
    const { limiters, roundTrips } = fleet(5, 1, 2);
    const limiter = limiters[0];
    if (!limiter) throw new Error('no limiter');
    const first = await Promise.all([limiter.take('k'), limiter.take('k')].map(decide));
    expect(first.map((d) => d.allowed)).toEqual([true, true]);
    expect(roundTrips()).toBe(1);
    const rest = [];
    for (let i = 0; i < 4; i++) rest.push((await decide(limiter.take('k'))).allowed);
    // 2 + 2 + the single point left (a grant of 2 asked for, 1 given), then refused.
    expect(rest).toEqual([true, true, true, false]);
    expect((await decide(limiter.take('k'))).remaining).toBe(0);
  });

  test('remaining counts down by one per request in one process', async () => {
    const { limiters } = fleet(1000, 1);
    const limiter = limiters[0];
    if (!limiter) throw new Error('no limiter');
    const seen = [];
    for (let i = 0; i < 25; i++) seen.push((await decide(limiter.take('k'))).remaining);
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => 999 - i));
  });
});

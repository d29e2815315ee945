import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { createResolver, type LookupDeps } from './context';
import type { VersionCache } from './versions';

// lru-cache keeps time with the real `performance.now`: a short cache time and real waits.
const TTL = 60;
const outage = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

/** A resolver whose customer lookups the test answers: found, unknown, or the database down. */
function resolver() {
  const db = { down: false, reads: 0, discount: 10 };
  const deps = {
    catalog: { rules: () => ({}) },
    postalCodes: { terminalOf: async () => null },
    customers: {
      get: async (nr: string) => {
        db.reads += 1;
        if (db.down) throw outage();
        return nr === '1000' ? { customerNr: nr, agreement: { FreightDiscountPercent: db.discount } } : null;
      },
      byPriceServiceId: async () => null,
    },
  } as unknown as LookupDeps;
  const none = { all: () => [], reload: async () => [] } as unknown as VersionCache<never>;
  return { db, resolve: createResolver(deps, none, none, TTL) };
}

describe('the pricing lookups while the database is down', () => {
  test('nothing held: the outage fails as an outage, never as "does not exist"', async () => {
    // Once answered as an unknown customer (a 400) instead of a 503.
    const { db, resolve } = resolver();
    db.down = true;
    await expect(resolve.customer('1000')).rejects.toThrow(/ECONNREFUSED/);
  });

  test('an unknown customer held is asked again, and an outage then is an outage', async () => {
    const { db, resolve } = resolver();
    expect(await resolve.customer('9999')).toBeNull();
    await sleep(1_100); // a miss is trusted for a second (MISS_TTL_MS)
    db.down = true;
    await expect(resolve.customer('9999')).rejects.toThrow(/ECONNREFUSED/);
  });

  test('a customer found before is served on, without every request waiting on the outage', async () => {
    const { db, resolve } = resolver();
    expect((await resolve.customer('1000'))?.customerNr).toBe('1000');
    db.down = true;
    await sleep(TTL * 3);
    expect((await resolve.customer('1000'))?.customerNr).toBe('1000');
    const reads = db.reads;
    expect((await resolve.customer('1000'))?.customerNr).toBe('1000');
    expect(db.reads).toBe(reads);
  });

  test('after an idle spell a changed customer is read before it is used', async () => {
    const { db, resolve } = resolver();
    expect((await resolve.customer('1000'))?.agreement.FreightDiscountPercent).toBe(10);
    db.discount = 20;
    await sleep(TTL * 3);
    expect((await resolve.customer('1000'))?.agreement.FreightDiscountPercent).toBe(20);
  });
});

describe('a customer changed while it is being read', () => {
  test('the read in flight answers what it read; the next reads the change', async () => {
    // Once rejected with lru-cache's `deleted`: prices and bookings waiting on it answered 500.
    let changed: (nr: string) => void = () => {};
    let answer: (discount: number) => void = () => {};
    const deps = {
      catalog: { rules: () => ({}) },
      postalCodes: { terminalOf: async () => null },
      customers: {
        get: (nr: string) =>
          new Promise((resolve) => {
            answer = (discount) =>
              resolve({ customerNr: nr, agreement: { FreightDiscountPercent: discount } });
          }),
        byPriceServiceId: async () => null,
        onChange: (listener: (nr: string) => void) => {
          changed = listener;
        },
      },
    } as unknown as LookupDeps;
    const none = { all: () => [], reload: async () => [] } as unknown as VersionCache<never>;
    const resolve = createResolver(deps, none, none, TTL);
    const reading = resolve.customer('1000');
    changed('1000');
    answer(10);
    expect((await reading)?.agreement.FreightDiscountPercent).toBe(10);
    const next = resolve.customer('1000');
    answer(20);
    expect((await next)?.agreement.FreightDiscountPercent).toBe(20);
  });
});

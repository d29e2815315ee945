import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_KEY, bearer, createTestDatabase } from '../../test/helpers';
import { buildApp, createServices } from '../app';
import { loadConfig } from '../config';

// Two app processes on one database, as two hosts of a fleet: on PostgreSQL they share one count.
describe.runIf(process.env.KOLLI_TEST_DB === 'postgres')('the rate limit across processes', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let apps: Awaited<ReturnType<typeof buildApp>>[] = [];
  let key = '';

  beforeAll(async () => {
    database = await createTestDatabase();
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      KOLLI_ADMIN_KEY: ADMIN_KEY,
      KOLLI_RATE_LIMIT_PER_MINUTE: '10',
    });
    const services = createServices(database, config);
    if (!(await services.customers.get('1000')))
      await services.customers.create({ CustomerNr: '1000', Name: 'Fleet AS' });
    key = (await services.auth.createKey({ name: 'fleet', customerNrs: ['1000'], scopes: ['price'] })).Key;
    apps = [
      await buildApp({ config, database, services: createServices(database, config) }),
      await buildApp({ config, database, services: createServices(database, config) }),
    ];
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await database.dispose();
  });

  test('two processes together admit the limit once; the other refuses with the shared Retry-After', async () => {
    const codes: number[] = [];
    const retryAfter: number[] = [];
    for (let i = 0; i < 30; i++) {
      const app = apps[i % 2];
      if (!app) throw new Error('no app');
      const res = await app.inject({ url: '/v1/postalcodes/0150', headers: bearer(key) });
      codes.push(res.statusCode);
      if (res.statusCode === 429) retryAfter.push(Number(res.headers['retry-after']));
    }
    expect(codes.filter((c) => c === 200)).toHaveLength(10);
    expect(codes.slice(10).every((c) => c === 429)).toBe(true);
    // Both processes count down to the same end of the window.
    expect(Math.max(...retryAfter) - Math.min(...retryAfter)).toBeLessThanOrEqual(1);
    expect(Math.min(...retryAfter)).toBeGreaterThan(50);
  });
});

import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestContext } from '../../test/helpers';

// KOLLI_DB_STATEMENT_TIMEOUT_MS is PostgreSQL's statement_timeout on every pooled connection: the
// server cancels a statement past it (SQLSTATE 57014), which answers 503 with Retry-After, and the
// connection serves the next request. PGlite does not enforce statement_timeout (docs/operations.md).

let ctx: TestContext;
const rows = async <T>(query: SQL) =>
  ((await ctx.database.db.execute(query)) as unknown as { rows: T[] }).rows;
const postgres = process.env.KOLLI_TEST_DB === 'postgres';

beforeAll(async () => {
  ctx = await buildTestApp({
    env: { KOLLI_DB_STATEMENT_TIMEOUT_MS: '300' },
    extraRoutes: (app) => {
      app.get('/test/slow', { config: { public: true } }, async () => {
        await ctx.database.db.execute(sql`select pg_sleep(2)`);
        return { done: true };
      });
      app.get('/test/quick', { config: { public: true } }, async () => {
        await ctx.database.db.execute(sql`select pg_sleep(0.05)`);
        return { done: true };
      });
    },
  });
});
afterAll(() => ctx.close());

test.runIf(postgres)(
  'a statement past the statement timeout is cancelled by the server: 503, Retry-After',
  async () => {
    const started = Date.now();
    const slow = await ctx.app.inject({ url: '/test/slow' });
    expect(Date.now() - started).toBeLessThan(1_800);
    expect(slow.statusCode).toBe(503);
    expect(slow.headers['retry-after']).toBe('5');
    expect(slow.json()).toMatchObject({
      status: 503,
      detail: 'The database did not answer in time; try again shortly.',
    });
    // Cancelled on the server, not abandoned by the client: nothing of it still runs.
    const running = await rows<{ n: number }>(
      sql`select count(*)::int as n from pg_stat_activity where query like 'select pg_sleep(2)%' and state = 'active'`,
    );
    expect(running).toEqual([{ n: 0 }]);
    // Shorter statements on the same pool go on being answered.
    expect((await ctx.app.inject({ url: '/test/quick' })).statusCode).toBe(200);
  },
);

test.runIf(postgres)('every pooled connection carries the configured statement timeout', async () => {
  const shown = await Promise.all(Array.from({ length: 3 }, () => rows(sql`show statement_timeout`)));
  for (const s of shown) expect(s).toEqual([{ statement_timeout: '300ms' }]);
});

test.runIf(!postgres)(
  'the embedded database has no statement timeout: a long statement completes',
  async () => {
    expect((await ctx.app.inject({ url: '/test/slow' })).statusCode).toBe(200);
  },
);

import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestContext } from '../../test/helpers';

// Under overload (the event loop's delay above KOLLI_MAX_EVENT_LOOP_DELAY_MS) the API sheds with a
// 503 and `/readyz` takes the process out of rotation, while liveness and metrics still answer.

let ctx: TestContext;

beforeAll(async () => {
  ctx = await buildTestApp({ env: { KOLLI_MAX_EVENT_LOOP_DELAY_MS: '100' } });
});
afterAll(() => ctx.close());

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Holds the event loop, as a burst of work that outruns the process would. */
function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

test('an overloaded process sheds the API and readiness with 503, and still answers liveness and metrics', async () => {
  const status = async (url: string) => (await ctx.app.inject({ url })).statusCode;
  let seen: Record<string, number> | null = null;
  // The delay is the mean of the loop's samples, taken once a second: every turn held 150 ms makes
  // it ~140 ms (> 100). A round counts only when `/readyz` shed before and after the answers, so
  // they came under overload.
  const until = Date.now() + 20_000;
  while (!seen && Date.now() < until) {
    block(150);
    await nextTurn();
    const before = await status('/readyz');
    const answers = {
      healthz: await status('/healthz'),
      metrics: await status('/metrics'),
      api: await status('/v1/postalcodes/0150'),
    };
    if (before === 503 && (await status('/readyz')) === 503) seen = answers;
  }
  expect(seen, 'no sample saw the event loop held').not.toBeNull();
  expect(seen).toEqual({ healthz: 200, metrics: 200, api: 503 });
});

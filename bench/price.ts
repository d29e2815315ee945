// Price benchmark (issue 4): requests per second and p99 latency of GET /v3/Calculate/ beside a bare
// Fastify route that answers a JSON body of the same size, in one run, and their ratio (target ≥ 0.6).
// Two loads on the price route: one query asked again and again, as autocannon does (the answer cache
// replays it after auth, the rate limit and metrics), and every query distinct (each one priced).
//
//   npm run bench -- price                                   # embedded PGlite
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- price
//
// With DATABASE_URL the benchmark creates a scratch database beside the named one and drops it at
// the end, so it never touches existing data. BENCH_SECONDS (default 3), BENCH_ROUNDS (default 10)
// and BENCH_CONNECTIONS (default 20) tune the load; autocannon runs in a worker thread, off the
// server's event loop.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';

// Many short rounds rather than a few long ones: this machine's speed drifts over seconds, and a
// round's loads run back to back, so the median of per-round ratios compares like with like.
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);

const givenUrl = process.env.DATABASE_URL;
let scratch: { admin: string; name: string } | null = null;
if (givenUrl) {
  const name = `kolli_bench_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: givenUrl });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(givenUrl);
  url.pathname = `/${name}`;
  process.env.DATABASE_URL = url.toString();
  scratch = { admin: givenUrl, name };
}

// Imported after DATABASE_URL points at the scratch database.
const { benchServer, median } = await import('./_setup');
const { app, database, key, kind } = await benchServer(['price']);

const path =
  '/v3/Calculate/?Customernr=1000&SenderZip=0150&ReceiverZip=5003&Weight=25&VolumeD3=120&ProductCode=43&Services=16&Services=35';
const headers = { authorization: `Bearer ${key}` };

try {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const first = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  const body = await first.text();
  if (first.status !== 200) throw new Error(`GET /v3/Calculate/ answered ${first.status}: ${body}`);

  // The baseline: a bare Fastify route that answers the same JSON (same size), nothing else.
  const bare = Fastify({ logger: false });
  const payload = JSON.parse(body) as unknown;
  bare.get('/bare', async () => payload);
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const barePort = (bare.server.address() as { port: number }).port;
  const bareBody = await (await fetch(`http://127.0.0.1:${barePort}/bare`)).text();

  const distinctWeights = fileURLToPath(new URL('./_distinct-weights.cjs', import.meta.url));
  const run = (url: string, duration: number, withKey: boolean, distinct = false) =>
    autocannon({
      url,
      connections: CONNECTIONS,
      duration,
      workers: 1,
      headers: withKey ? headers : {},
      ...(distinct ? { requests: [{ setupRequest: distinctWeights }] } : {}),
    });

  const bareUrl = `http://127.0.0.1:${barePort}/bare`;
  const priceUrl = `http://127.0.0.1:${port}${path}`;
  // Warm all three (JIT, caches), then measure them in alternating rounds, so load from elsewhere on
  // the machine weighs on all alike; the figures are the medians of the rounds.
  await run(bareUrl, 2, false);
  await run(priceUrl, 2, true);
  await run(priceUrl, 2, true, true);
  const rounds: { bare: autocannon.Result; repeated: autocannon.Result; distinct: autocannon.Result }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const bareRound = await run(bareUrl, SECONDS, false);
    const repeated = await run(priceUrl, SECONDS, true);
    const distinct = await run(priceUrl, SECONDS, true, true);
    rounds.push({ bare: bareRound, repeated, distinct });
    const rps = (r: autocannon.Result) => r.requests.average;
    console.log(
      `round ${i + 1}: bare ${rps(bareRound).toFixed(0)} req/s; calculate, one query ${rps(repeated).toFixed(0)} (${(rps(repeated) / rps(bareRound)).toFixed(2)}), distinct queries ${rps(distinct).toFixed(0)} (${(rps(distinct) / rps(bareRound)).toFixed(2)})`,
    );
  }
  const mid = (xs: number[]) => median(xs);
  const rpsOf = (pick: (r: (typeof rounds)[number]) => autocannon.Result) =>
    mid(rounds.map((r) => pick(r).requests.average));
  const p99Of = (pick: (r: (typeof rounds)[number]) => autocannon.Result) =>
    mid(rounds.map((r) => pick(r).latency.p99));
  const ratioOf = (pick: (r: (typeof rounds)[number]) => autocannon.Result) =>
    mid(rounds.map((r) => pick(r).requests.average / r.bare.requests.average));
  const non2xx = rounds.reduce((n, r) => n + r.bare.non2xx + r.repeated.non2xx + r.distinct.non2xx, 0);
  if (non2xx > 0) throw new Error(`${non2xx} answers were not 2xx: the figures would not be of prices`);
  console.log(
    `database: ${kind}; ${CONNECTIONS} connections; ${ROUNDS} rounds of ${SECONDS} s each; body ${body.length} bytes (bare ${bareBody.length}); non-2xx ${non2xx}`,
  );
  console.log(
    `bare Fastify route:                   ${rpsOf((r) => r.bare).toFixed(0)} req/s, p99 ${p99Of((r) => r.bare)} ms`,
  );
  console.log(
    `GET /v3/Calculate/, one query:        ${rpsOf((r) => r.repeated).toFixed(0)} req/s, p99 ${p99Of((r) => r.repeated)} ms, ratio ${ratioOf((r) => r.repeated).toFixed(2)} (target ≥ 0.60)`,
  );
  console.log(
    `GET /v3/Calculate/, distinct queries: ${rpsOf((r) => r.distinct).toFixed(0)} req/s, p99 ${p99Of((r) => r.distinct)} ms, ratio ${ratioOf((r) => r.distinct).toFixed(2)} (every request priced)`,
  );
  await bare.close();
} finally {
  await app.close();
  await database.close();
  if (scratch) {
    const client = new pg.Client({ connectionString: scratch.admin });
    await client.connect();
    await client.query(`drop database if exists ${scratch.name} with (force)`);
    await client.end();
  }
}

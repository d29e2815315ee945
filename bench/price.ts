// Price benchmark (issue 4): requests per second and p99 latency of GET /v3/Calculate/ beside a bare
// Fastify route that answers a JSON body of the same size, in one run, and their ratio (target ≥ 0.6).
//
//   npm run bench -- price                                   # embedded PGlite
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- price
//
// With DATABASE_URL the benchmark creates a scratch database beside the named one and drops it at
// the end, so it never touches existing data. BENCH_SECONDS (default 10), BENCH_ROUNDS (default 3)
// and BENCH_CONNECTIONS (default 20) tune the load; autocannon runs in a worker thread, off the
// server's event loop.
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

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

  const run = (url: string, duration: number, withKey: boolean) =>
    autocannon({
      url,
      connections: CONNECTIONS,
      duration,
      workers: 1,
      headers: withKey ? headers : {},
    });

  // Warm both (JIT, caches), then measure them in alternating rounds, so load from elsewhere on the
  // machine weighs on both alike; the figures are the medians of the rounds.
  await run(`http://127.0.0.1:${barePort}/bare`, 2, false);
  await run(`http://127.0.0.1:${port}${path}`, 2, true);
  const rounds: { bare: autocannon.Result; calculate: autocannon.Result }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const baseline = await run(`http://127.0.0.1:${barePort}/bare`, SECONDS, false);
    const calculate = await run(`http://127.0.0.1:${port}${path}`, SECONDS, true);
    rounds.push({ bare: baseline, calculate });
    console.log(
      `round ${i + 1}: bare ${baseline.requests.average.toFixed(0)} req/s, calculate ${calculate.requests.average.toFixed(0)} req/s, ratio ${(calculate.requests.average / baseline.requests.average).toFixed(2)}`,
    );
  }
  const mid = (xs: number[]) => median(xs);
  const bareRps = mid(rounds.map((r) => r.bare.requests.average));
  const calcRps = mid(rounds.map((r) => r.calculate.requests.average));
  const non2xx = rounds.reduce((n, r) => n + r.bare.non2xx + r.calculate.non2xx, 0);
  console.log(
    `database: ${kind}; ${CONNECTIONS} connections; ${ROUNDS} rounds of ${SECONDS} s each; body ${body.length} bytes (bare ${bareBody.length}); non-2xx ${non2xx}`,
  );
  console.log(
    `bare Fastify route:  ${bareRps.toFixed(0)} req/s, p99 ${mid(rounds.map((r) => r.bare.latency.p99))} ms`,
  );
  console.log(
    `GET /v3/Calculate/:  ${calcRps.toFixed(0)} req/s, p99 ${mid(rounds.map((r) => r.calculate.latency.p99))} ms`,
  );
  console.log(
    `ratio calculate / bare: ${(calcRps / bareRps).toFixed(2)} (median of rounds ${mid(rounds.map((r) => r.calculate.requests.average / r.bare.requests.average)).toFixed(2)}; target ≥ 0.60)`,
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

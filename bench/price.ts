// Price benchmark (issue 18, CONTRACT §13): requests per second of GET /v3/Calculate/ with EVERY
// request a distinct question (weights, volumes, postal codes and services varied; the answer cache
// off) beside a bare Fastify route answering a JSON body of the same size; then the server's RSS after
// 30 s of that load. Both servers run as processes pinned to core 0 (Kolli as `npm start` runs it:
// compiled, production, logging at info, auth and rate limit on); autocannon runs here, on core 1.
// Rounds alternate bare and Kolli; the figure is the median of the per-round ratios (target ≥ 0.6).
//
//   npm run bench -- price                                              # embedded PGlite
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- price
//
// With DATABASE_URL a scratch database is created beside it and dropped at the end. BENCH_ROUNDS
// (default 5), BENCH_SECONDS (default 5), BENCH_CONNECTIONS (default 20), BENCH_RSS_SECONDS (30).
import { execFileSync } from 'node:child_process';
import { prepareBenchDatabase } from './_prepared';
import {
  distinctPriceRequests,
  loadServer,
  PRICE_SERVER_ENV,
  SAMPLE_PRICE,
  startBare,
  startCeiling,
} from './_prices';
import { type ServerProcess, startKolli } from './_process';
import { median } from './_stats';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const RSS_SECONDS = Number(process.env.BENCH_RSS_SECONDS ?? 30);

execFileSync('node', ['scripts/ensure-build.mjs'], { stdio: 'inherit' });
const prepared = await prepareBenchDatabase(process.env.DATABASE_URL, ['price']);

const distinct = distinctPriceRequests();

let kolli: ServerProcess | null = null;
let bare: ServerProcess | null = null;
let ceiling: ServerProcess | null = null;
try {
  kolli = await startKolli({ ...prepared.env, ...PRICE_SERVER_ENV });
  const headers = { authorization: `Bearer ${prepared.key}` };
  const sample = `http://127.0.0.1:${kolli.port}${SAMPLE_PRICE}`;
  const first = await fetch(sample, { headers });
  const body = await first.text();
  if (first.status !== 200) throw new Error(`GET /v3/Calculate/ answered ${first.status}: ${body}`);
  bare = await startBare(body);
  const bareBody = await (await fetch(`http://127.0.0.1:${bare.port}/bare`)).text();
  // The ceiling shares the database, which only PostgreSQL allows (bench/_ceiling.ts).
  if (prepared.kind === 'postgres') ceiling = await startCeiling(prepared.env);

  // The distinct questions must be prices, not problems: ask a few of them first.
  const { createRequire } = await import('node:module');
  const next = createRequire(import.meta.url)(distinct) as (r: { path: string }) => { path: string };
  for (let i = 0; i < 50; i++) {
    const { path } = next({ path: '' });
    const res = await fetch(`http://127.0.0.1:${kolli.port}${path}`, { headers });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  }
  const load = (server: ServerProcess, isPrice: boolean, seconds: number) =>
    loadServer(server, isPrice ? { headers, distinct } : null, { seconds, connections: CONNECTIONS });

  // Warm each (JIT, caches), then alternate.
  await load(bare, false, 2);
  await load(kolli, true, 3);
  if (ceiling) await load(ceiling, true, 3);
  const rounds: { bare: number; kolli: number; ceiling: number; p99: number; non2xx: number }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const b = await load(bare, false, SECONDS);
    const k = await load(kolli, true, SECONDS);
    const c = ceiling ? await load(ceiling, true, SECONDS) : null;
    rounds.push({
      bare: b.requests.average,
      kolli: k.requests.average,
      ceiling: c?.requests.average ?? Number.NaN,
      p99: k.latency.p99,
      non2xx: b.non2xx + k.non2xx + b.errors + k.errors + (c ? c.non2xx + c.errors : 0),
    });
    const ratio = (x: number) => (x / b.requests.average).toFixed(2);
    console.log(
      `round ${i + 1}: bare ${b.requests.average.toFixed(0)} req/s, calculate ${k.requests.average.toFixed(0)} req/s, ratio ${ratio(k.requests.average)}${c ? `; ceiling ${c.requests.average.toFixed(0)} req/s, ratio ${ratio(c.requests.average)}` : ''}`,
    );
  }
  const non2xx = rounds.reduce((n, r) => n + r.non2xx, 0);
  if (non2xx > 0) throw new Error(`${non2xx} answers were not 2xx: the figures would not be of prices`);
  const rss = await load(kolli, true, RSS_SECONDS);
  if (rss.non2xx + rss.errors > 0) throw new Error(`${rss.non2xx} non-2xx answers under the RSS load`);
  const rssMb = kolli.rssMb();

  console.log(
    `database ${prepared.kind}; ${CONNECTIONS} connections; ${ROUNDS} alternating rounds of ${SECONDS} s; body ${body.length} bytes (bare ${bareBody.length}); answer cache off; every request distinct`,
  );
  console.log(`bare Fastify route:                   ${median(rounds.map((r) => r.bare)).toFixed(0)} req/s`);
  console.log(
    `GET /v3/Calculate/, distinct queries: ${median(rounds.map((r) => r.kolli)).toFixed(0)} req/s, p99 ${median(rounds.map((r) => r.p99))} ms`,
  );
  console.log(
    `price ratio (median of rounds): ${median(rounds.map((r) => r.kolli / r.bare)).toFixed(2)} (target ≥ 0.60)`,
  );
  if (ceiling) {
    console.log(
      `ceiling (the route alone, every layer, bench/_ceiling.ts): ${median(rounds.map((r) => r.ceiling)).toFixed(0)} req/s, ratio ${median(rounds.map((r) => r.ceiling / r.bare)).toFixed(2)}`,
    );
  }
  console.log(
    `RSS after ${RSS_SECONDS} s of distinct price load: ${rssMb.toFixed(0)} MB (target ≤ 250 MB; ${rss.requests.total} requests)`,
  );
} finally {
  await ceiling?.stop();
  await bare?.stop();
  await kolli?.stop();
  await prepared.drop();
}

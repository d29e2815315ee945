// Where the price route's cost lies, layer by layer (issue 18): the ceiling of bench/price.ts
// (bench/_ceiling.ts, the route alone with every layer Kolli's has) started once per step, from
// no layer at all (a fixed price answer on /v3/Calculate/) up to all of them, adding one layer a step
// in the order of bench/_ceiling-layers.ts: security headers and request id, key and rate limit,
// binder, text check and validator, the real quote, the response schema, the histogram and counter,
// the access line. Every step and the bare route of bench/price.ts get the same load in turn, each
// round: the distinct price questions (the bare route: its one URL) at a fixed BENCH_RATE, and the
// figure is the server's CPU per request by the kernel's accounting (all its threads, as
// bench/cpu.ts counts them). Not requests per second at saturation: a step without the costly layers
// answers faster than one autocannon worker can ask distinct questions on this machine, so its rate
// would measure the load generator. A step's ratio is the bare route's CPU per request over its own
// (what its requests/s ratio would be if both saturated their core at that cost).
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- layers
//
// PostgreSQL only (every step shares the prepared database). BENCH_RATE (4000 req/s, below what the
// whole route answers on these VMs), BENCH_ROUNDS (3), BENCH_SECONDS (5), BENCH_CONNECTIONS (20).
import { CEILING_LAYERS } from './_ceiling-layers';
import { prepareBenchDatabase } from './_prepared';
import { distinctPriceRequests, loadServer, SAMPLE_PRICE, startBare, startCeiling } from './_prices';
import { pinSelf, type ServerProcess, TICK_US, threadTicks } from './_process';
import { median } from './_stats';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const RATE = Number(process.env.BENCH_RATE ?? 4000);

if (!process.env.DATABASE_URL?.startsWith('postgres')) {
  console.error('bench/layers.ts needs DATABASE_URL=postgres://…: its servers share the database');
  process.exit(2);
}
const prepared = await prepareBenchDatabase(process.env.DATABASE_URL, ['price']);
const distinct = distinctPriceRequests();
const headers = { authorization: `Bearer ${prepared.key}` };
// [], [headers], [headers, auth], …, all of them
const steps = Array.from({ length: CEILING_LAYERS.length + 1 }, (_, i) => CEILING_LAYERS.slice(0, i));

const servers: ServerProcess[] = [];
try {
  // The whole route first: its answer to the sample question is what the steps without a quote give.
  const whole = await startCeiling(prepared.env);
  servers.push(whole);
  const first = await fetch(`http://127.0.0.1:${whole.port}${SAMPLE_PRICE}`, { headers });
  const body = await first.text();
  if (first.status !== 200) throw new Error(`GET /v3/Calculate/ answered ${first.status}: ${body}`);
  const bare = await startBare(body);
  servers.push(bare);
  const stepServers: ServerProcess[] = [];
  for (const names of steps) {
    const server =
      names.length === CEILING_LAYERS.length
        ? whole
        : await startCeiling(prepared.env, { names, body, key: prepared.key });
    if (server !== whole) servers.push(server);
    stepServers.push(server);
  }
  await pinSelf(1);

  /** The server's CPU per request (µs, all its threads) under `seconds` of the load at RATE. */
  const cpuPerRequest = async (server: ServerProcess | null, seconds: number) => {
    const pid = (server ?? bare).child.pid as number;
    const ticks = () => Object.values(threadTicks(pid)).reduce((a, b) => a + b, 0);
    const before = ticks();
    const result = await loadServer(server ?? bare, server ? { headers, distinct } : null, {
      seconds,
      connections: CONNECTIONS,
      rate: RATE,
    });
    if (result.non2xx + result.errors > 0)
      throw new Error(
        `${result.non2xx + result.errors} answers were not 2xx: the figures would not be of prices`,
      );
    return ((ticks() - before) * TICK_US) / result.requests.total;
  };
  // Warm each (JIT, caches), then alternate.
  await cpuPerRequest(null, 2);
  for (const server of stepServers) await cpuPerRequest(server, 2);
  const rounds: { bare: number; steps: number[] }[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const bareUs = await cpuPerRequest(null, SECONDS);
    const steps: number[] = [];
    for (const server of stepServers) steps.push(await cpuPerRequest(server, SECONDS));
    rounds.push({ bare: bareUs, steps });
    console.log(
      `round ${round}: µs of CPU per request: bare ${bareUs.toFixed(1)}; steps ${steps.map((us) => us.toFixed(1)).join(', ')}`,
    );
  }

  const bareUs = median(rounds.map((r) => r.bare));
  console.log(
    `database ${prepared.kind}; ${RATE} req/s offered; ${CONNECTIONS} connections; ${ROUNDS} alternating rounds of ${SECONDS} s; every price question distinct`,
  );
  console.log(`bare Fastify route: ${bareUs.toFixed(1)} µs of CPU a request`);
  let before = Number.NaN;
  steps.forEach((names, i) => {
    const us = median(rounds.map((r) => r.steps[i] as number));
    const ratio = median(rounds.map((r) => r.bare / (r.steps[i] as number)));
    const added = i === 0 ? 'no layer' : `+ ${names.at(-1)}: ${(us - before).toFixed(1)} µs more`;
    console.log(`${added.padEnd(28)} ${us.toFixed(1).padStart(6)} µs a request, ratio ${ratio.toFixed(2)}`);
    before = us;
  });
} finally {
  for (const server of servers) await server.stop();
  await prepared.drop();
}

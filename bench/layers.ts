// Where the price route's cost lies, layer by layer (issue 18): the ceiling of bench/price.ts
// (bench/_ceiling.ts, the route alone with every layer Kolli's has) started once per step, from
// no layer at all (a fixed price answer on /v3/Calculate/) up to all of them, adding one layer a step
// in the order of bench/_ceiling-layers.ts: security headers and request id, key and rate limit,
// binder, text check and validator, the real quote, the response schema, the histogram and counter,
// the access line. Every step (with the distinct price questions) and the bare route of
// bench/price.ts (with its one URL) are loaded in turn at a fixed BENCH_RATE, each round starting at
// the next load (the machine drifts within a round), and the figure is the server's CPU per request
// by the kernel's accounting (all its threads, as bench/cpu.ts counts them). Not requests per second
// at saturation: a step without the costly layers answers faster than one autocannon worker can ask
// distinct questions on these VMs, so its rate would measure the load generator. A layer's cost is
// the median over the rounds of what it added to the step before in that round.
//
// Limits, for reading the figures: at a fixed rate a mostly idle server pays a wake-up for each
// request, which at saturation it shares between several, so these µs are not bench/cpu.ts's and the
// printed ratio (the bare route's µs over the step's) is not bench/price.ts's; each step is its own
// process, whose lasting quirks (JIT decisions, memory layout) stay in its layer's figure; the
// ceiling runs under tsx, the bare route under plain node; the log goes to /dev/null; PostgreSQL's
// CPU is not counted (the price route queries it only to refresh a cache entry, every 10 s a key).
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- layers
//
// PostgreSQL only (every step shares the prepared database). BENCH_RATE (2000 req/s; a load that
// keeps its server's core over 90 % busy is reported, as it is near saturation), BENCH_ROUNDS (5),
// BENCH_SECONDS (5), BENCH_CONNECTIONS (20), BENCH_WARM_SECONDS (5, each load before the rounds).
import { CEILING_LAYERS } from './_ceiling-layers';
import { prepareBenchDatabase } from './_prepared';
import { distinctPriceRequests, loadServer, SAMPLE_PRICE, startBare, startCeiling } from './_prices';
import { pinSelf, type ServerProcess, threadTicks, tickMicros } from './_process';
import { median } from './_stats';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const RATE = Number(process.env.BENCH_RATE ?? 2000);
const WARM_SECONDS = Number(process.env.BENCH_WARM_SECONDS ?? 5);

if (!process.env.DATABASE_URL?.startsWith('postgres')) {
  console.error('bench/layers.ts needs DATABASE_URL=postgres://…: its servers share the database');
  process.exit(2);
}
// [], [headers], [headers, auth], …, all of them
const STEPS = Array.from({ length: CEILING_LAYERS.length + 1 }, (_, i) => CEILING_LAYERS.slice(0, i));
const stepName = (i: number) => (i === 0 ? 'no layer' : `+ ${CEILING_LAYERS[i - 1]}`);

const distinct = distinctPriceRequests();
const prepared = await prepareBenchDatabase(process.env.DATABASE_URL, ['price']);
const servers: ServerProcess[] = [];
try {
  const price = { headers: { authorization: `Bearer ${prepared.key}` }, distinct };
  // The whole route first: its answer to the sample question is what the steps without a quote give.
  const whole = await startCeiling(prepared.env);
  servers.push(whole);
  const first = await fetch(`http://127.0.0.1:${whole.port}${SAMPLE_PRICE}`, { headers: price.headers });
  const body = await first.text();
  if (first.status !== 200) throw new Error(`GET /v3/Calculate/ answered ${first.status}: ${body}`);
  const bare = await startBare(body);
  servers.push(bare);
  const stepServers: ServerProcess[] = [];
  for (const names of STEPS.slice(0, -1)) {
    const server = await startCeiling(prepared.env, { names, body, key: prepared.key });
    servers.push(server);
    stepServers.push(server);
  }
  stepServers.push(whole); // the last step, every layer
  await pinSelf(1);

  /** Load `index` (0: the bare route, i: step i - 1) for `seconds`; its CPU per request in µs. */
  const loads = [bare, ...stepServers];
  const cpuPerRequest = async (index: number, seconds: number, when: string) => {
    const server = loads[index] as ServerProcess;
    const pid = server.child.pid as number;
    const ticks = () => Object.values(threadTicks(pid)).reduce((a, b) => a + b, 0);
    const before = ticks();
    const result = await loadServer(server, index === 0 ? null : price, {
      seconds,
      connections: CONNECTIONS,
      rate: RATE,
    });
    if (result.non2xx + result.errors > 0)
      throw new Error(
        `${result.non2xx + result.errors} answers were not 2xx: the figures would not be of prices`,
      );
    const us = ((ticks() - before) * tickMicros()) / result.requests.total;
    const busy = (us * result.requests.total) / (seconds * 1e6);
    const name = index === 0 ? 'bare' : stepName(index - 1);
    if (busy > 0.9)
      console.log(`  ${when}: ${name} kept its core ${(busy * 100).toFixed(0)} % busy: near saturation`);
    return us;
  };
  // Warm the JIT and the caches: a pricing step's first seconds cost twice its later ones.
  for (let i = 0; i < loads.length; i++) await cpuPerRequest(i, WARM_SECONDS, 'warm-up');
  const rounds: number[][] = []; // µs a request: [bare, step 0, step 1, …]
  for (let round = 0; round < ROUNDS; round++) {
    const figures: number[] = [];
    // Each round starts at the next load, so none always runs last, after the machine drifted most.
    for (let k = 0; k < loads.length; k++) {
      const i = (k + round) % loads.length;
      figures[i] = await cpuPerRequest(i, SECONDS, `round ${round + 1}`);
    }
    rounds.push(figures);
    console.log(
      `round ${round + 1}: µs of CPU per request: bare ${figures[0]?.toFixed(1)}; steps ${figures
        .slice(1)
        .map((us) => us.toFixed(1))
        .join(', ')}`,
    );
  }

  const at = (i: number) => rounds.map((r) => r[i] as number);
  const bareUs = at(0);
  console.log(
    `database ${prepared.kind}; ${RATE} req/s offered; ${CONNECTIONS} connections; ${ROUNDS} rounds of ${SECONDS} s in turn; every price question distinct`,
  );
  console.log(`bare Fastify route: ${median(bareUs).toFixed(1)} µs of CPU a request`);
  STEPS.forEach((_, i) => {
    const us = at(i + 1);
    const before = at(i); // the step before, or the bare route before the first
    const added = us.map((u, r) => u - (before[r] as number));
    const ratios = us.map((u, r) => (bareUs[r] as number) / u);
    console.log(
      `${stepName(i).padEnd(14)} ${median(us).toFixed(1).padStart(6)} µs a request; adds ${median(added).toFixed(1).padStart(5)} µs (rounds ${Math.min(...added).toFixed(0)} to ${Math.max(...added).toFixed(0)}); ratio ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
    );
  });
} finally {
  for (const server of servers) await server.stop();
  await prepared.drop();
}

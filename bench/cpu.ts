// Where a price request's time goes, by the kernel's own accounting: the CPU per request of
// GET /v3/Calculate/ (every query distinct, the answer cache off, as in bench/price.ts) for one or
// more Kolli processes and the bare route, split into the server's main thread (user and system)
// and its other threads (V8's collector and compilers, libuv), with core 0's softirq time (the
// loopback delivery of the answers, most of it inside the main thread's system time). A diagnostic
// for comparing builds or settings on a noisy VM, and a check on profiles: V8's own profile of a
// server pinned to one core loses most of its busy time (bench/README.md).
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- cpu
//   BENCH_VARIANTS='|--max-semi-space-size=32' BENCH_RATE=12000 npm run bench -- cpu
//
// BENCH_VARIANTS: Kolli processes separated by `|`; in each, `NAME=value` words are environment and
// the rest node flags. List a variant more than once to see the spread between processes, which on
// these VMs is as large as most changes (default: one plain process). Every process and the bare
// route (BENCH_BARE=0 leaves it out) are pinned to core 0 and loaded in turn from core 1, at
// BENCH_RATE requests/s (default 0: as fast as each answers) for BENCH_SECONDS (5), BENCH_ROUNDS (3)
// times. BENCH_PERF=<dir>: each load is also recorded there by `perf record -e cpu-clock -g` on the
// server's main thread (add --perf-basic-prof to a variant so its JavaScript frames have names).
// Without DATABASE_URL the embedded database serves one Kolli process only.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareBenchDatabase } from './_prepared';
import { distinctPriceRequests, loadServer, PRICE_SERVER_ENV, SAMPLE_PRICE, startBare } from './_prices';
import { type ServerProcess, startKolli, threadTicks, tickMicros } from './_process';
import { median } from './_stats';

const RATE = Number(process.env.BENCH_RATE ?? 0);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const VARIANTS = (process.env.BENCH_VARIANTS ?? '').split('|').map((v) => v.trim());
const PERF = process.env.BENCH_PERF;

/** Core 0's softirq ticks so far (/proc/stat: user nice system idle iowait irq softirq). */
const softirqTicks = () =>
  Number(
    readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('cpu0 '))
      ?.split(/\s+/)[7],
  );

execFileSync('node', ['scripts/ensure-build.mjs'], { stdio: 'inherit' });
const prepared = await prepareBenchDatabase(process.env.DATABASE_URL, ['price']);
if (prepared.kind === 'pglite' && VARIANTS.length > 1) {
  await prepared.drop();
  throw new Error('several BENCH_VARIANTS need DATABASE_URL: an embedded database opens in one process');
}
const distinct = distinctPriceRequests();
const headers = { authorization: `Bearer ${prepared.key}` };
/** A Kolli process of a variant (the processes of one variant share its medians), or the bare route. */
const servers: { name: string; variant: string | null; server: ServerProcess }[] = [];
const group = (s: (typeof servers)[number]) => (s.variant === null ? 'bare' : `kolli [${s.variant}]`);
try {
  for (const variant of VARIANTS) {
    const words = variant.split(/\s+/).filter(Boolean);
    const env = Object.fromEntries(words.filter((w) => /^[A-Z_]+=/.test(w)).map((w) => w.split(/=(.*)/s)));
    const flags = words.filter((w) => !/^[A-Z_]+=/.test(w));
    const server = await startKolli({ ...prepared.env, ...PRICE_SERVER_ENV, ...env }, flags);
    servers.push({ name: `kolli-${servers.length + 1}`, variant, server });
  }
  const first = servers[0]?.server;
  if (!first) throw new Error('BENCH_VARIANTS lists no process');
  const sample = await fetch(`http://127.0.0.1:${first.port}${SAMPLE_PRICE}`, { headers });
  const body = await sample.text();
  if (sample.status !== 200) throw new Error(`GET /v3/Calculate/ answered ${sample.status}: ${body}`);
  if (process.env.BENCH_BARE !== '0') {
    const server = await startBare(body, PERF ? ['--perf-basic-prof'] : []);
    servers.push({ name: 'bare', variant: null, server });
  }

  const load = (s: (typeof servers)[number], seconds: number, rate = 0) =>
    loadServer(s.server, s.variant === null ? null : { headers, distinct }, {
      seconds,
      connections: 20,
      rate,
    });
  // For a second less than the load, so it records only the loaded server.
  const recordPerf = (pid: number, file: string) =>
    new Promise<void>((resolve) => {
      const seconds = String(Math.max(1, SECONDS - 1));
      const args = [
        'record',
        '-q',
        '-e',
        'cpu-clock',
        '-g',
        '-t',
        String(pid),
        '-o',
        file,
        '--',
        'sleep',
        seconds,
      ];
      const perf = spawn('perf', args, { stdio: ['ignore', 'ignore', 'inherit'] });
      perf.on('error', (err) => {
        console.error(`perf did not run (${err.message}); figures without a recording`);
        resolve();
      });
      perf.on('exit', () => resolve());
    });

  for (const s of servers) await load(s, 3); // warm the JIT and the caches
  const figures = new Map<string, { rate: number; total: number }[]>();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const s of servers) {
      const pid = s.server.child.pid as number;
      const before = { ...threadTicks(pid), softirq: softirqTicks() };
      const perf = PERF ? recordPerf(pid, join(PERF, `${s.name}-round${round}.data`)) : null;
      const result = await load(s, SECONDS, RATE);
      await perf;
      const after = { ...threadTicks(pid), softirq: softirqTicks() };
      const label = s.variant === null ? 'bare' : `${s.name.replace('-', ' ')} [${s.variant}]`;
      if (result.non2xx + result.errors > 0) throw new Error(`${label}: ${result.non2xx} answers not 2xx`);
      const n = result.requests.total;
      const us = (key: keyof typeof before) => ((after[key] - before[key]) * tickMicros()) / n;
      // The main thread's system time already holds the softirq work done in its name (mostly the
      // loopback delivery of what it writes); core 0's softirq figure shows how much that is.
      const total = us('user') + us('system') + us('helpers');
      console.log(
        `round ${round} ${label}: ${(n / SECONDS).toFixed(0)} req/s; µs per request: main thread user ${us('user').toFixed(1)}, system ${us('system').toFixed(1)} (core 0 softirq ${us('softirq').toFixed(1)}); other threads ${us('helpers').toFixed(1)}; total ${total.toFixed(1)}`,
      );
      figures.set(group(s), [...(figures.get(group(s)) ?? []), { rate: n / SECONDS, total }]);
    }
  }
  console.log(
    `${RATE > 0 ? `${RATE} req/s offered` : 'as fast as answered'}; ${ROUNDS} rounds of ${SECONDS} s; 20 connections; every price query distinct, answer cache off`,
  );
  for (const [key, list] of figures) {
    console.log(
      `${key}: median ${median(list.map((f) => f.rate)).toFixed(0)} req/s, ${median(list.map((f) => f.total)).toFixed(1)} µs of CPU per request (${list.length} loads)`,
    );
  }
} finally {
  for (const s of servers) await s.server.stop();
  await prepared.drop();
}

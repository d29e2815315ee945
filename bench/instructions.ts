// Instructions per price request, counted (issue 18): Kolli and the bare route of bench/price.ts each
// run under valgrind's callgrind, are warmed with BENCH_WARM requests, and then counted over
// BENCH_REQUESTS more (Kolli's distinct price questions; the bare route's one URL). A diagnostic, no
// target: on these VMs two loads of the same build differ by up to half in requests per second, while
// the count of the same build repeats to within about 3 %, so a change's cost shows here when the
// timed benches cannot see it. Printed: the main thread's instructions per request of each (the
// request path runs there), their ratio, the other threads' (V8's compilers and collector), and
// Kolli's largest own costs by function, JavaScript named from `--perf-basic-prof`'s map, beside the
// bare route's for the same function.
//
// What it does not show: the kernel's share (the socket's system calls, ~13 µs of a price request's
// ~54 in bench/cpu.ts against the bare route's ~8 of ~20) and cache misses. And under valgrind a
// request takes ~50 times as long, so work driven by the clock (timers, the pricing caches' refreshes,
// the register's digest) falls on ~50 times fewer requests than at full speed: those functions
// (`listOnTimeout`, drizzle's `execute`, lru-cache's `fetch`) read high here.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- instructions
//
// Needs valgrind (Debian's package). BENCH_WARM (30000), BENCH_REQUESTS (5000), BENCH_TOP (25).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareBenchDatabase } from './_prepared';
import { distinctPriceRequests, PRICE_SERVER_ENV, SAMPLE_PRICE } from './_prices';
import { type ServerProcess, startServer } from './_process';

const WARM = Number(process.env.BENCH_WARM ?? 30_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 5_000);
const TOP = Number(process.env.BENCH_TOP ?? 25);

try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('bench/instructions.ts needs valgrind (apt-get install -y valgrind)');
  process.exit(2);
}
execFileSync('node', ['scripts/ensure-build.mjs'], { stdio: 'inherit' });
const dir = mkdtempSync(join(tmpdir(), 'kolli-instructions-'));
const prepared = await prepareBenchDatabase(process.env.DATABASE_URL, ['price']);
const nextQuestion = createRequire(import.meta.url)(distinctPriceRequests()) as (r: { path: string }) => {
  path: string;
};
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
const headers = { authorization: `Bearer ${prepared.key}` };
// startServer gives the server HOST=127.0.0.1; valgrind names its control pipes after it.
const controlEnv = { ...process.env, HOST: '127.0.0.1' };

function get(port: number, path: string, withKey: boolean): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent, headers: withKey ? headers : {} }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

/** `count` requests, eight at a time; every answer must be a 200. */
async function load(server: ServerProcess, count: number, price: boolean) {
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      sent++;
      const { status, body } = await get(
        server.port,
        price ? nextQuestion({ path: '' }).path : '/bare',
        price,
      );
      if (status !== 200) throw new Error(`answered ${status}: ${body}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

interface Count {
  main: number;
  others: number;
  /** Self instructions per request by function name (the main thread). */
  functions: Map<string, number>;
}

/** JavaScript code ranges from a `--perf-basic-prof` map; a later entry for the same start wins. */
function perfMap(pid: number) {
  const byStart = new Map<number, [number, number, string]>();
  for (const line of readFileSync(`/tmp/perf-${pid}.map`, 'utf8').split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (m)
      byStart.set(Number.parseInt(m[1] as string, 16), [
        Number.parseInt(m[1] as string, 16),
        Number.parseInt(m[2] as string, 16),
        m[3] as string,
      ]);
  }
  const ranges = [...byStart.values()].sort((a, b) => a[0] - b[0]);
  return (address: number): string | null => {
    let lo = 0;
    let hi = ranges.length - 1;
    let best: [number, number, string] | null = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const range = ranges[mid] as [number, number, string];
      if (range[0] <= address) {
        best = range;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return best && address < best[0] + best[1] ? best[2] : null;
  };
}

/** Starts `command` under callgrind, warms it, counts `REQUESTS` requests, stops it and reads the counts. */
async function count(
  name: string,
  command: string[],
  env: Record<string, string>,
  price: boolean,
): Promise<Count> {
  const out = join(dir, `${name}.out`);
  const server = await startServer(
    [
      'valgrind',
      '--tool=callgrind',
      '--separate-threads=yes',
      '--instr-atstart=no',
      '--smc-check=all-non-file',
      `--vgdb-prefix=${join(dir, 'vgdb')}`,
      `--callgrind-out-file=${out}`,
      `--log-file=${join(dir, `${name}.log`)}`,
      'node',
      '--perf-basic-prof',
      ...command,
    ],
    env,
  );
  const pid = server.child.pid as number;
  const control = (on: boolean) =>
    execFileSync(
      'callgrind_control',
      [`--vgdb-prefix=${join(dir, 'vgdb')}`, '-i', on ? 'on' : 'off', String(pid)],
      {
        env: controlEnv,
        stdio: 'ignore',
      },
    );
  try {
    await load(server, WARM, price);
    control(true);
    await load(server, REQUESTS, price);
    control(false);
  } finally {
    await server.stop();
  }
  const name0 = `${name}.out-01`;
  const totals = (file: string) =>
    Number(/^totals: (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'))?.[1] ?? 0);
  const others = readdirSync(dir)
    .filter((f) => f.startsWith(`${name}.out-`) && f !== name0)
    .reduce((n, f) => n + totals(f), 0);
  const named = perfMap(pid);
  rmSync(`/tmp/perf-${pid}.map`, { force: true });
  const functions = new Map<string, number>();
  const annotated = execFileSync(
    'callgrind_annotate',
    ['--inclusive=no', '--threshold=100', join(dir, name0)],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  for (const line of annotated.split('\n')) {
    const m = /^\s*([\d,]+) \([^)]*\)\s+(?:\?\?\?|[^:]*):(.*?)(?: \[[^\]]*\])?$/.exec(line);
    if (!m || line.includes('PROGRAM TOTALS')) continue;
    const address = /^0x([0-9a-f]+)$/.exec((m[2] as string).trim());
    const fn = address
      ? (named(Number.parseInt(address[1] as string, 16)) ?? '(JavaScript, unnamed)')
      : (m[2] as string).trim();
    const key = fn
      .replace(/(?:file:\/\/)?\/[^ ]*?\/(dist|node_modules)\//, '$1/')
      .replace(/\s+/g, ' ')
      .slice(0, 110);
    functions.set(key, (functions.get(key) ?? 0) + Number((m[1] as string).replaceAll(',', '')) / REQUESTS);
  }
  return { main: totals(name0) / REQUESTS, others: others / REQUESTS, functions };
}

try {
  const env = {
    ...prepared.env,
    ...PRICE_SERVER_ENV,
    LOG_LEVEL: 'info',
    KOLLI_RATE_LIMIT_PER_MINUTE: '100000000',
    // Under valgrind the event loop runs ~50 times slower, and on a busy machine its delay passes the
    // production threshold: the overload check (still on) would refuse the counted requests with 503.
    KOLLI_MAX_EVENT_LOOP_DELAY_MS: '600000',
  } as Record<string, string>;
  // The bare route answers the body Kolli answers to the sample question (read from a plain start).
  const plain = await startServer(['node', 'dist/server.js'], env);
  const sample = await get(plain.port, SAMPLE_PRICE, true);
  await plain.stop();
  if (sample.status !== 200) throw new Error(`GET /v3/Calculate/ answered ${sample.status}: ${sample.body}`);
  const bodyFile = join(dir, 'body.json');
  writeFileSync(bodyFile, sample.body);

  const kolli = await count('kolli', ['dist/server.js'], env, true);
  const bare = await count('bare', ['bench/_bare.mjs', bodyFile], {}, false);
  const k = (n: number) => `${(n / 1000).toFixed(1)} k`;
  console.log(
    `database ${prepared.kind}; ${REQUESTS} requests counted after ${WARM}; Kolli: distinct price questions; bare: its one URL`,
  );
  console.log(`main thread, instructions a request: bare ${k(bare.main)}, Kolli ${k(kolli.main)}`);
  console.log(`ratio bare / Kolli (main thread): ${(bare.main / kolli.main).toFixed(2)}`);
  console.log(
    `other threads (compilers, collector) a request: bare ${k(bare.others)}, Kolli ${k(kolli.others)}`,
  );
  console.log(`Kolli's ${TOP} largest self costs a request (main thread), the bare route's beside:`);
  for (const [fn, n] of [...kolli.functions].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
    console.log(`${k(n).padStart(8)} ${k(bare.functions.get(fn) ?? 0).padStart(8)}  ${fn}`);
  }
} finally {
  agent.destroy();
  await prepared.drop();
  rmSync(dir, { recursive: true, force: true });
}

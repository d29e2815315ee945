// Booking benchmark (issue 18, CONTRACT §13), PostgreSQL only:
// - 1-parcel Published bookings (POST /Shipment/Update) with 10 clients, beside a raw `pg`
//   transaction writing the same rows (shipment, parcel, the two outbox events) with 10 clients;
// - a 999-parcel booking beside a raw shipment insert + one `unnest` insert of its parcels;
// - the database round trips of a 1-parcel booking, and of 8 999-parcel bookings in a row, counted
//   on an in-process app.
// Kolli runs as `npm start` runs it (compiled, production, logging at info, auth, rate limit, outbox
// and webhook fan-out on) pinned to core 0; the raw writer is a process pinned to core 0 too;
// autocannon and this script run on core 1. Rounds alternate; figures are medians of per-round ratios.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- booking
//
// A scratch database is created beside DATABASE_URL and dropped at the end. BENCH_ROUNDS (5),
// BENCH_SECONDS (5), BENCH_RUNS (15, of the 999-parcel booking); BENCH_PROFILE=<dir> as in price.ts.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { measuredParcels, osloBergenBooking } from '../test/factories';
import { bookingStatements, countRoundTrips } from '../test/round-trips';
import { prepareBenchDatabase } from './_prepared';
import { pinned, type ServerProcess, startKolli } from './_process';
import { median } from './_stats';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
if (!process.env.DATABASE_URL) throw new Error('bench/booking.ts needs DATABASE_URL (PostgreSQL)');

execFileSync('node', ['scripts/ensure-build.mjs'], { stdio: 'inherit' });
const prepared = await prepareBenchDatabase(process.env.DATABASE_URL, ['booking', 'shipments']);
const shipment = (n: number) =>
  osloBergenBooking({
    SenderReference: `bench-${n}`,
    PickupCompanyName: 'Bench AS',
    RecipientCompanyName: 'Mottaker AS',
    Parcels: measuredParcels(n),
  });
const headers = { authorization: `Bearer ${prepared.key}`, 'content-type': 'application/json' };

// The 999-parcel bookings go through node:http on a kept-alive connection, as autocannon's do:
// fetch (undici) spent ~2 ms more of this process's own time on each, the client's cost, not Kolli's.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let kolli: ServerProcess | null = null;
let raw: ChildProcess | null = null;
try {
  kolli = await startKolli(prepared.env);
  const base = `http://127.0.0.1:${kolli.port}/Shipment/Update`;
  const post = (body: string) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const length = { 'content-length': String(Buffer.byteLength(body)) };
      const req = http.request(base, { method: 'POST', agent, headers: { ...headers, ...length } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  const book = async (n: number) => {
    // The body is the client's work, not Kolli's: built before the clock starts.
    const body = JSON.stringify(shipment(n));
    const started = performance.now();
    const { status, text } = await post(body);
    if (status !== 201) throw new Error(`booking answered ${status}: ${text.slice(0, 300)}`);
    return { ms: performance.now() - started, id: (JSON.parse(text) as { ShipmentId: string }).ShipmentId };
  };
  const oneTemplate = (await book(1)).id;
  const bigTemplate = (await book(999)).id;

  const [cmd, ...args] = pinned(0, ['node', '--import', 'tsx', 'bench/_raw-writer.ts']);
  raw = spawn(cmd as string, args, {
    env: { ...process.env, DATABASE_URL: prepared.url ?? '' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const answers = createInterface({ input: raw.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const ask = async <T>(line: string): Promise<T> => {
    raw?.stdin?.write(`${line}\n`);
    const { value } = await answers.next();
    return JSON.parse(value as string) as T;
  };
  const kolliOne = (duration: number) =>
    autocannon({
      url: base,
      method: 'POST',
      connections: 10,
      duration,
      workers: 1,
      headers,
      body: JSON.stringify(shipment(1)),
    });

  // Warm both, then alternate.
  await kolliOne(2);
  await ask(`one 2 ${oneTemplate}`);
  const oneRounds: { kolli: number; raw: number }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const k = await kolliOne(SECONDS);
    if (k.non2xx + k.errors > 0) throw new Error(`${k.non2xx} non-2xx answers, ${k.errors} errors`);
    const r = await ask<{ perSecond: number }>(`one ${SECONDS} ${oneTemplate}`);
    oneRounds.push({ kolli: k.requests.average, raw: r.perSecond });
    console.log(
      `round ${i + 1}: 1-parcel bookings ${k.requests.average.toFixed(0)}/s, raw transactions ${r.perSecond.toFixed(0)}/s, ratio ${(k.requests.average / r.perSecond).toFixed(2)}`,
    );
  }
  const bigRuns: { kolli: number; raw: number }[] = [];
  await book(999);
  await ask(`big ${bigTemplate}`);
  for (let i = 0; i < RUNS; i++) {
    const k = await book(999);
    const r = await ask<{ ms: number }>(`big ${bigTemplate}`);
    bigRuns.push({ kolli: k.ms, raw: r.ms });
  }

  // Round trips, counted on an in-process app over the same database (warm caches: the fewest of 3).
  process.env.DATABASE_URL = prepared.url ?? '';
  const { benchServer } = await import('./_setup');
  const inproc = await benchServer(['booking']);
  const injectOne = () =>
    inproc.app.inject({
      method: 'POST',
      url: '/Shipment/Update',
      headers: { authorization: `Bearer ${inproc.key}` },
      payload: shipment(1),
    });
  await injectOne();
  const trips: number[] = [];
  for (let i = 0; i < 3; i++) trips.push((await countRoundTrips(inproc.database, injectOne)).count);
  // And of a run of 999-parcel bookings, where the serial draws show (store/serials.ts draws ahead).
  const bigRun = 8;
  const bigTrips = await countRoundTrips(inproc.database, async () => {
    for (let i = 0; i < bigRun; i++) {
      const res = await inproc.app.inject({
        method: 'POST',
        url: '/Shipment/Update',
        headers: { authorization: `Bearer ${inproc.key}` },
        payload: shipment(999),
      });
      if (res.statusCode !== 201)
        throw new Error(`booking answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
    }
  });
  const big = bookingStatements(bigTrips.statements);
  await inproc.app.close();
  await inproc.database.close();

  const f = (x: number) => x.toFixed(1);
  console.log(`database postgres; ${ROUNDS} alternating rounds of ${SECONDS} s; ${RUNS} runs of 999 parcels`);
  console.log(
    `1-parcel Published booking, 10 clients: ${median(oneRounds.map((r) => r.kolli)).toFixed(0)}/s; raw pg transaction (shipment, parcel, outbox): ${median(oneRounds.map((r) => r.raw)).toFixed(0)}/s`,
  );
  console.log(
    `1-parcel booking ratio (median of rounds): ${median(oneRounds.map((r) => r.kolli / r.raw)).toFixed(2)} (target ≥ 0.50)`,
  );
  console.log(
    `999-parcel booking: median ${f(median(bigRuns.map((r) => r.kolli)))} ms (target < 150 ms); raw shipment + unnest parcels: median ${f(median(bigRuns.map((r) => r.raw)))} ms`,
  );
  console.log(
    `999-parcel ratio booking / raw (median of runs): ${median(bigRuns.map((r) => r.kolli / r.raw)).toFixed(2)}× (target ≤ 2×)`,
  );
  console.log(`round trips of a 1-parcel Published booking: ${Math.min(...trips)} (target ≤ 6)`);
  console.log(
    `round trips of ${bigRun} 999-parcel bookings in a row: ${big.writes} writes, ${big.draws} serial draws, ${big.begins} BEGINs (besides: ${big.others}, the request log's and caches')`,
  );
} finally {
  agent.destroy();
  raw?.stdin?.end();
  await kolli?.stop();
  await prepared.drop();
}

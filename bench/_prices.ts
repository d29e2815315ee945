// What the price benches (bench/price.ts, cpu.ts, layers.ts) share: the distinct price questions
// (postal codes with street addresses, spread over the country, each with a serving terminal, for the
// autocannon setupRequest module `_distinct-prices.cjs`, which reads them from BENCH_ZIPS in its
// worker), the server settings, the bare reference route, the ceiling and the load.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { profileFlags, type ServerProcess, startServer } from './_process';

/** Sets BENCH_ZIPS and returns the path of the setupRequest module that varies every request. */
export function distinctPriceRequests(): string {
  const zips = readFileSync(fileURLToPath(new URL('../data/postal-codes-no.csv', import.meta.url)), 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.split(','))
    .filter((c) => c[6] === 'G')
    .map((c) => c[0] as string)
    .filter((_, i) => i % 20 === 0);
  process.env.BENCH_ZIPS = zips.join(',');
  return fileURLToPath(new URL('./_distinct-prices.cjs', import.meta.url));
}

/** A price question that must answer 200, and the server settings Kolli prices with in the benches. */
export const SAMPLE_PRICE =
  '/v3/Calculate/?Customernr=1000&SenderZip=0150&ReceiverZip=5003&Weight=25&VolumeD3=120&ProductCode=43&Services=16&Services=35';
export const PRICE_SERVER_ENV = {
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  KOLLI_ANSWER_CACHE_MS: '0',
  KOLLI_WEBHOOK_WORKER: '0',
};

/** The bare Fastify route (`_bare.mjs`) answering `body`, the reference every price ratio divides by. */
export async function startBare(body: string, flags: string[] = []): Promise<ServerProcess> {
  const bodyFile = join(tmpdir(), `kolli-bench-bare-${process.pid}.json`);
  writeFileSync(bodyFile, body);
  try {
    return await startServer(
      ['node', ...flags, fileURLToPath(new URL('./_bare.mjs', import.meta.url)), bodyFile],
      {},
    );
  } finally {
    rmSync(bodyFile, { force: true }); // read once, at its start
  }
}

/**
 * The ceiling (`_ceiling.ts`) on the prepared PostgreSQL database (`env`), with a rate limit that
 * never refuses; `layers` (default all) is passed on as CEILING_LAYERS, with the answer it gives
 * without a quote (`body`) and the key it quotes for without authentication (`key`).
 */
export function startCeiling(
  env: Record<string, string | undefined>,
  layers?: { names: readonly string[]; body: string; key: string },
): Promise<ServerProcess> {
  return startServer(
    ['node', ...profileFlags(), '--import', 'tsx', fileURLToPath(new URL('./_ceiling.ts', import.meta.url))],
    {
      ...env,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      KOLLI_RATE_LIMIT_PER_MINUTE: '100000000',
      // Unset unless given: one exported in this shell must not strip the whole route's layers.
      CEILING_LAYERS: layers?.names.join(','),
      CEILING_BODY: layers?.body,
      CEILING_KEY: layers?.key,
    },
  );
}

/**
 * A load of `seconds` on a server: with `price`, GET /v3/Calculate/ with every question distinct;
 * without, the bare route. `rate` (requests/s over all connections) 0 is as fast as it answers.
 */
export const loadServer = (
  server: ServerProcess,
  price: { headers: Record<string, string>; distinct: string } | null,
  { seconds, connections, rate = 0 }: { seconds: number; connections: number; rate?: number },
) =>
  autocannon({
    url: `http://127.0.0.1:${server.port}${price ? '/v3/Calculate/' : '/bare'}`,
    connections,
    duration: seconds,
    workers: 1,
    ...(rate > 0 ? { overallRate: rate } : {}),
    ...(price ? { headers: price.headers, requests: [{ setupRequest: price.distinct }] } : {}),
  });

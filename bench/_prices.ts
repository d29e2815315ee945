// The distinct price questions of bench/price.ts and bench/cpu.ts: postal codes with street addresses,
// spread over the country (each has a serving terminal), for the autocannon setupRequest module
// `_distinct-prices.cjs`, which reads them from BENCH_ZIPS in its worker.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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

/** A price question that must answer 200, and the server settings both benches price with. */
export const SAMPLE_PRICE =
  '/v3/Calculate/?Customernr=1000&SenderZip=0150&ReceiverZip=5003&Weight=25&VolumeD3=120&ProductCode=43&Services=16&Services=35';
export const PRICE_SERVER_ENV = {
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  KOLLI_ANSWER_CACHE_MS: '0',
  KOLLI_WEBHOOK_WORKER: '0',
};

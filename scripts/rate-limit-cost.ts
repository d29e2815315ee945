// What the fleet-wide rate limit costs per request (docs/scaling.md): the shared store's upsert on
// PostgreSQL, and a request's cost through the grant limiter against the in-memory count.
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --import tsx scripts/rate-limit-cost.ts
// It creates a scratch database beside the named one and drops it at the end.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { openDatabase } from '../src/db/client';
import { createGrantLimiter, grantSize, type PointStore, sharedPointStore } from '../src/http/rate-limit';

const given = process.env.DATABASE_URL;
if (!given) throw new Error('DATABASE_URL is needed (a PostgreSQL server)');
const name = `kolli_rl_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: given });
await admin.connect();
await admin.query(`create database ${name}`);
const url = new URL(given);
url.pathname = `/${name}`;
const database = await openDatabase({ url: url.toString(), dataDir: null });
try {
  await database.migrate();
  const perMinute = 1_000_000_000; // never exhausted: every request is admitted
  const shared = sharedPointStore(database.db, perMinute);
  const memory = new RateLimiterMemory({ points: perMinute, duration: 60 });

  // One grant: one upsert round trip.
  const n = 2000;
  for (let i = 0; i < 200; i++) await shared.consume('warm', 1);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await shared.consume('grant', 12);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  console.log(
    `shared store, one grant (upsert): median ${times[n / 2]?.toFixed(3)} ms, p99 ${times[Math.floor(n * 0.99)]?.toFixed(3)} ms`,
  );

  // A request through the grant limiter, at the default limit's grant size (12 points), 20 at a time.
  const perRequest = async (store: PointStore, grant: number) => {
    const limiter = createGrantLimiter({ perMinute, store, grant });
    const requests = 60_000;
    let left = requests;
    const t = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (left-- > 0) {
          const d = limiter.take('k');
          if (d instanceof Promise) await d;
        }
      }),
    );
    return (Number(process.hrtime.bigint() - t) / 1e3 / requests).toFixed(2);
  };
  // Before the fleet limit: one RateLimiterMemory.consume (a promise) per request.
  const direct = async () => {
    const limiter = new RateLimiterMemory({ points: perMinute, duration: 60 });
    const requests = 60_000;
    let left = requests;
    const t = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (left-- > 0) await limiter.consume('k');
      }),
    );
    return (Number(process.hrtime.bigint() - t) / 1e3 / requests).toFixed(2);
  };
  const grant = grantSize(1200);
  console.log(`per request, RateLimiterMemory.consume (per process, before): ${await direct()} µs`);
  console.log(`per request, grant of ${grant} (the default limit 1200/min):`);
  console.log(`  in-memory count (embedded):      ${await perRequest(memory, grant)} µs`);
  console.log(`  PostgreSQL count (fleet):        ${await perRequest(shared, grant)} µs`);
  console.log(`  PostgreSQL, a round trip each:   ${await perRequest(shared, 1)} µs`);
} finally {
  await database.close();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}

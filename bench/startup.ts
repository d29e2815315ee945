// Startup benchmark: time from spawning the server until /healthz answers, and its idle RSS 3 s
// later, for the compiled build (`node dist/server.js`, what `npm start` runs) beside the sources
// under the tsx loader (`node --import tsx src/server.ts`). Medians of alternating runs on a data
// directory prepared once (migrations and reference data already loaded, as on every restart).
//
//   npm run bench -- startup          BENCH_RUNS (default 5)
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './_process';
import { median } from './_stats';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
execFileSync('node', ['scripts/ensure-build.mjs'], { stdio: 'inherit' });
const dataDir = mkdtempSync(join(tmpdir(), 'kolli-startup-'));
const env = { KOLLI_DATA_DIR: dataDir, LOG_LEVEL: 'info', KOLLI_SHUTDOWN_DRAIN_MS: '0' };
const variants = {
  compiled: ['node', 'dist/server.js'],
  tsx: ['node', '--import', 'tsx', 'src/server.ts'],
};

// The first start migrates and loads the reference data; not measured.
await (await startServer(variants.compiled, env)).stop();
const figures: Record<keyof typeof variants, { ms: number[]; rss: number[] }> = {
  compiled: { ms: [], rss: [] },
  tsx: { ms: [], rss: [] },
};
for (let i = 0; i < RUNS; i++) {
  for (const name of Object.keys(variants) as (keyof typeof variants)[]) {
    const server = await startServer(variants[name], env);
    await new Promise((r) => setTimeout(r, 3000));
    figures[name].ms.push(server.startedMs);
    figures[name].rss.push(server.rssMb());
    await server.stop();
  }
}
for (const name of Object.keys(variants) as (keyof typeof variants)[]) {
  const f = figures[name];
  console.log(
    `${name.padEnd(8)} startup ${median(f.ms).toFixed(0)} ms, idle RSS ${median(f.rss).toFixed(0)} MB (median of ${RUNS}, embedded database)`,
  );
}
console.log(
  `compiled / tsx: startup ${(median(figures.compiled.ms) / median(figures.tsx.ms)).toFixed(2)}, idle RSS ${(median(figures.compiled.rss) / median(figures.tsx.rss)).toFixed(2)}`,
);

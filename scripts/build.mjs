// `npm run build`: the server, the worker and the migrate command as compiled JavaScript in dist/
// (one ES module each; packages stay in node_modules). `npm start`, `npm run worker` and
// `npm run migrate` run these, building first when dist/ is missing or older than the sources
// (scripts/ensure-build.mjs), so a fresh clone needs only `npm ci && npm start`.
import { writeFileSync } from 'node:fs';
import { build } from 'esbuild';

export const ENTRIES = ['src/server.ts', 'src/worker.ts', 'src/migrate.ts'];

export async function buildDist() {
  await build({
    entryPoints: ENTRIES,
    outdir: 'dist',
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    // Not minified, so functions and classes keep their source names in stacks and logs without
    // esbuild's keepNames, which defines `name` on every closure as it is made: a runtime call per
    // arrow function created on a request's path.
    logLevel: 'warning',
  });
  writeFileSync('dist/.built', `${new Date().toISOString()}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await buildDist();

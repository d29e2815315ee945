// Runs before `npm start`, `npm run worker` and `npm run migrate`: builds dist/ (scripts/build.mjs)
// when it is missing or older than any source, the lock file or the build script. Only stats files,
// so an up-to-date build costs a few milliseconds.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const mtime = (path) => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
};

function newest(dir) {
  let latest = mtime(dir);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (entry.name.endsWith('.ts')) latest = Math.max(latest, mtime(path));
  }
  return latest;
}

const built = mtime('dist/.built');
const sources = Math.max(
  newest('src'),
  mtime('package.json'),
  mtime('package-lock.json'),
  mtime('scripts/build.mjs'),
  mtime('tsconfig.json'),
);
if (built < sources) {
  const { buildDist } = await import('./build.mjs');
  await buildDist();
}

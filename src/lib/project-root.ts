import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's root (the folder holding package.json), found from this module's own place, so the
 * shipped files (`data/`, the migrations) are found both from the sources (tsx, vitest) and from the
 * one-file build in `dist/` (scripts/build.mjs), whose modules all share one `import.meta.url`.
 */
function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

const PROJECT_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

/** A path inside the project, e.g. `projectPath('data')`. */
export const projectPath = (...parts: string[]): string => join(PROJECT_ROOT, ...parts);

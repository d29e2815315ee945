/**
 * Writes `data/pickup-points-sandbox.csv`: the sandbox pickup points generated deterministically from
 * `data/postal-codes-no.csv` (rules in `src/pickup-points/sandbox.ts`). Run it after changing the
 * postal register:
 *
 *   node --import tsx scripts/generate-pickup-points.ts
 *
 * A data test (`src/pickup-points/routes.test.ts`) checks that the shipped file equals this output.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  generateSandboxPoints,
  type RegisterCsvRow,
  registerRowOf,
  sandboxCsv,
} from '../src/pickup-points/sandbox';
import { DATA_DIR, readCsv } from '../src/reference-data/files';

const register = readCsv<RegisterCsvRow>('postal-codes-no.csv').rows.map(registerRowOf);
const points = generateSandboxPoints(register);
writeFileSync(join(DATA_DIR, 'pickup-points-sandbox.csv'), sandboxCsv(points));
console.log(`wrote data/pickup-points-sandbox.csv (${points.length} points)`);

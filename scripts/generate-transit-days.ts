/**
 * Writes `data/transit-days.csv`: the transit time of every ordered terminal pair of
 * `data/terminals.csv`, from the distance bands and the documented exceptions in
 * `src/reference-data/terminals-routing.ts`. Run it after changing the terminals:
 *
 *   node --import tsx scripts/generate-transit-days.ts
 *
 * A data test (`src/reference-data/terminals.test.ts`) checks that the shipped file equals this output.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_DIR } from '../src/reference-data/files';
import { readTerminalsFile, transitCsv } from '../src/reference-data/terminals-files';

writeFileSync(join(DATA_DIR, 'transit-days.csv'), transitCsv(readTerminalsFile().rows));
console.log('wrote data/transit-days.csv');

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { projectPath } from '../lib/project-root';

/** The shipped reference data (`data/` at the project root); never the runtime data directory. */
export const DATA_DIR = `${projectPath('data')}/`;

export interface DataFile<Row> {
  sha256: string;
  rows: Row[];
}

/** Reads a CSV with a header row; every value stays a string (postal codes keep their leading zeros). */
export function readCsv<Row = Record<string, string>>(name: string): DataFile<Row> {
  const text = readFileSync(new URL(name, `file://${DATA_DIR}`), 'utf8');
  const rows = parse(text, { columns: true, skip_empty_lines: true, trim: true }) as Row[];
  return { sha256: createHash('sha256').update(text).digest('hex'), rows };
}

/** One CSV field as the generators write it: quoted when it holds a quote, a comma or a newline. */
export function csvField(value: string | number): string {
  const s = String(value);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

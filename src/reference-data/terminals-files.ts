import { createHash } from 'node:crypto';
import { csvField, type DataFile, readCsv } from './files';
import { type TransitRow, transitMatrix } from './terminals-routing';
import type { terminalOverrides, terminals } from './terminals-tables';

/** The shipped routing data: `data/terminals.csv`, `data/transit-days.csv`, `data/terminal-overrides.csv`. */
export const TERMINAL_FILES = {
  terminals: 'terminals.csv',
  transitDays: 'transit-days.csv',
  overrides: 'terminal-overrides.csv',
} as const;

export type TerminalRecord = typeof terminals.$inferSelect;
export type OverrideRecord = typeof terminalOverrides.$inferSelect;

/** Everything the routing tables hold; what the shipped files and `PUT /admin/terminals` give. */
export interface RoutingData {
  terminals: TerminalRecord[];
  transitDays: TransitRow[];
  overrides: OverrideRecord[];
}

interface TerminalCsv {
  code: string;
  name: string;
  place: string;
  lat: string;
  lon: string;
}
interface TransitCsv {
  from_terminal: string;
  to_terminal: string;
  days: string;
  basis: string;
}
interface OverrideCsv {
  postal_code: string;
  terminal: string;
  reason: string;
}

export function readTerminalsFile(): DataFile<TerminalRecord> {
  const file = readCsv<TerminalCsv>(TERMINAL_FILES.terminals);
  return {
    sha256: file.sha256,
    rows: file.rows.map((r) => ({
      code: r.code,
      name: r.name,
      place: r.place,
      lat: Number(r.lat),
      lon: Number(r.lon),
    })),
  };
}

/** Reads the three shipped files; `sha256` covers all of them, so a change to any reloads the set. */
export function readShippedRouting(): { data: RoutingData; sha256: string } {
  const t = readTerminalsFile();
  const d = readCsv<TransitCsv>(TERMINAL_FILES.transitDays);
  const o = readCsv<OverrideCsv>(TERMINAL_FILES.overrides);
  return {
    sha256: createHash('sha256').update(`${t.sha256}:${d.sha256}:${o.sha256}`).digest('hex'),
    data: {
      terminals: t.rows,
      transitDays: d.rows.map((r) => ({
        fromTerminal: r.from_terminal,
        toTerminal: r.to_terminal,
        days: Number(r.days),
        basis: r.basis,
      })),
      overrides: o.rows.map((r) => ({ postalCode: r.postal_code, terminal: r.terminal, reason: r.reason })),
    },
  };
}

/** `data/transit-days.csv` as the generator writes it (every ordered pair, sorted by codes). */
export function transitCsv(list: readonly TerminalRecord[]): string {
  const lines = transitMatrix(list).map((r) =>
    [r.fromTerminal, r.toTerminal, r.days, r.basis].map(csvField).join(','),
  );
  return `from_terminal,to_terminal,days,basis\n${lines.join('\n')}\n`;
}

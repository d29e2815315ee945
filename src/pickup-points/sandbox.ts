import { csvField } from '../reference-data/files';
/**
 * The sandbox pickup points, generated deterministically from the postal register: one point per
 * started ten street-address codes (categories G and B) of a place that has at least two of them, at
 * the coordinate of the first code of each ten; and in every municipality left without a point, one
 * at its first street-address code, so no part of the country is far from a point. Every name says
 * "sandbox": they are not real shops.
 * `scripts/generate-pickup-points.ts` writes them to `data/pickup-points-sandbox.csv`.
 */

export interface RegisterRow {
  postalCode: string;
  place: string;
  municipalityCode: string;
  category: string;
  lat: number | null;
  lon: number | null;
}

export interface PickupPointRecord {
  id: number;
  name: string;
  address: string;
  postalCode: string;
  place: string;
  lat: number;
  lon: number;
  openingHours: string;
  sandbox: boolean;
}

/** Street-address codes per point: a big place gets one point per started ten codes. */
export const CODES_PER_POINT = 10;

const OPENING_HOURS = [
  'Mo-Fr 08:00-21:00; Sa 09:00-18:00',
  'Mo-Sa 07:00-23:00; Su 09:00-21:00',
  'Mo-Fr 09:00-17:00; Sa 10:00-15:00',
] as const;

/** The id of a sandbox point: 1 followed by the postal code it stands at (0150 → 10150), so ids stay put when other places change. */
export const sandboxId = (postalCode: string) => Number(`1${postalCode}`);

export function generateSandboxPoints(register: readonly RegisterRow[]): PickupPointRecord[] {
  const groups = new Map<string, RegisterRow[]>();
  const byMunicipality = new Map<string, RegisterRow>();
  for (const row of [...register].sort((a, b) => a.postalCode.localeCompare(b.postalCode))) {
    if (row.category !== 'G' && row.category !== 'B') continue;
    if (row.lat === null || row.lon === null) continue;
    const key = `${row.municipalityCode}|${row.place}`;
    const list = groups.get(key) ?? [];
    list.push(row);
    groups.set(key, list);
    if (!byMunicipality.has(row.municipalityCode)) byMunicipality.set(row.municipalityCode, row);
  }
  const at: RegisterRow[] = [];
  const served = new Set<string>();
  for (const rows of groups.values()) {
    if (rows.length < 2) continue;
    for (let i = 0; i < rows.length; i += CODES_PER_POINT) {
      const row = rows[i];
      if (row) at.push(row);
    }
    served.add(rows[0]?.municipalityCode ?? '');
  }
  for (const [municipality, row] of byMunicipality) if (!served.has(municipality)) at.push(row);
  const points = at.map((row): PickupPointRecord => {
    const id = sandboxId(row.postalCode);
    return {
      id,
      name: `Kolli sandbox point ${row.place} ${row.postalCode}`,
      address: `Sandkassevegen ${1 + (Number(row.postalCode) % 49)}`,
      postalCode: row.postalCode,
      place: row.place,
      lat: row.lat ?? 0,
      lon: row.lon ?? 0,
      openingHours: OPENING_HOURS[id % OPENING_HOURS.length] ?? OPENING_HOURS[0],
      sandbox: true,
    };
  });
  return points.sort((a, b) => a.id - b.id);
}

const CSV_HEADER = 'id,name,address,postal_code,place,lat,lon,opening_hours';

/** `data/pickup-points-sandbox.csv` as the generator writes it. */
export function sandboxCsv(points: readonly PickupPointRecord[]): string {
  const lines = points.map((p) =>
    [p.id, p.name, p.address, p.postalCode, p.place, p.lat, p.lon, p.openingHours].map(csvField).join(','),
  );
  return `${CSV_HEADER}\n${lines.join('\n')}\n`;
}

/** Registers rows of `data/postal-codes-no.csv` as the generator reads them. */
export interface RegisterCsvRow {
  postal_code: string;
  place: string;
  municipality_code: string;
  category: string;
  lat: string;
  lon: string;
}

export const registerRowOf = (r: RegisterCsvRow): RegisterRow => ({
  postalCode: r.postal_code,
  place: r.place,
  municipalityCode: r.municipality_code,
  category: r.category,
  lat: r.lat === '' ? null : Number(r.lat),
  lon: r.lon === '' ? null : Number(r.lon),
});

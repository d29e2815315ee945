/** Pure routing: great-circle distances, nearest terminal, transit bands. No database here. */

export interface Point {
  lat: number;
  lon: number;
}

export interface TerminalPoint extends Point {
  code: string;
}

const EARTH_RADIUS_KM = 6371.0088;
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle (haversine) distance in kilometres. */
export function distanceKm(a: Point, b: Point): number {
  const dLat = rad(b.lat - a.lat);
  const dLon = rad(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The nearest terminal (ties go to the lower code, so the answer never depends on input order). */
export function nearestTerminal(point: Point, candidates: readonly TerminalPoint[]): TerminalPoint | null {
  let best: TerminalPoint | null = null;
  let bestKm = Number.POSITIVE_INFINITY;
  for (const t of candidates) {
    const km = distanceKm(point, t);
    if (km < bestKm || (km === bestKm && best !== null && t.code < best.code)) {
      best = t;
      bestKm = km;
    }
  }
  return best;
}

export interface RoutablePostalCode {
  postalCode: string;
  municipalityCode: string;
  lat: number | null;
  lon: number | null;
}

/**
 * A coordinate for every postal code: its own, or else the mean of the coordinates of the other codes
 * in its municipality (the register's fallback, equal to `approx_lat/approx_lon` of the shared
 * municipality table), or null when the municipality has none either.
 */
export function coordinatesOf(codes: readonly RoutablePostalCode[]): Map<string, Point | null> {
  const sums = new Map<string, { lat: number; lon: number; n: number }>();
  for (const c of codes) {
    if (c.lat === null || c.lon === null) continue;
    const s = sums.get(c.municipalityCode) ?? { lat: 0, lon: 0, n: 0 };
    s.lat += c.lat;
    s.lon += c.lon;
    s.n += 1;
    sums.set(c.municipalityCode, s);
  }
  const out = new Map<string, Point | null>();
  for (const c of codes) {
    if (c.lat !== null && c.lon !== null) {
      out.set(c.postalCode, { lat: c.lat, lon: c.lon });
    } else {
      const s = sums.get(c.municipalityCode);
      out.set(c.postalCode, s ? { lat: s.lat / s.n, lon: s.lon / s.n } : null);
    }
  }
  return out;
}

/**
 * The serving terminal of every postal code: the override when there is one for a known terminal,
 * else the nearest terminal by great-circle distance, else null (no coordinate at all).
 */
export function assignTerminals(
  codes: readonly RoutablePostalCode[],
  candidates: readonly TerminalPoint[],
  overrides: ReadonlyMap<string, string>,
): Map<string, string | null> {
  const known = new Set(candidates.map((t) => t.code));
  const coords = coordinatesOf(codes);
  const out = new Map<string, string | null>();
  for (const c of codes) {
    const override = overrides.get(c.postalCode);
    if (override && known.has(override)) {
      out.set(c.postalCode, override);
      continue;
    }
    const p = coords.get(c.postalCode);
    out.set(c.postalCode, p ? (nearestTerminal(p, candidates)?.code ?? null) : null);
  }
  return out;
}

/**
 * Distance bands for transit days (road distance is roughly 1.3–1.5× the great-circle distance in
 * Norway): the same terminal or a neighbour is next day, a day's linehaul is two days, and so on.
 */
export const TRANSIT_BANDS: readonly { maxKm: number; days: number }[] = [
  { maxKm: 150, days: 1 },
  { maxKm: 450, days: 2 },
  { maxKm: 900, days: 3 },
  { maxKm: Number.POSITIVE_INFINITY, days: 4 },
];

/** Transit days of a terminal pair by great-circle distance alone (before exceptions). */
export function bandDays(km: number): { days: number; basis: string } {
  let lower = 0;
  for (const band of TRANSIT_BANDS) {
    if (km <= band.maxKm) {
      const label = Number.isFinite(band.maxKm) ? `${lower}-${band.maxKm} km` : `over ${lower} km`;
      return { days: band.days, basis: `band ${label}` };
    }
    lower = band.maxKm;
  }
  return { days: 4, basis: 'band' };
}

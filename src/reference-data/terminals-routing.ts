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

/** A documented deviation from the distance bands for one (unordered) terminal pair. */
export interface TransitException {
  /** The two terminals (the rule applies in both directions). */
  pair: readonly [string, string];
  days: number;
  reason: string;
}

/**
 * Pairs whose transit time the distance bands get wrong (`docs/catalogue.md` explains each):
 * overnight trunk lines from Oslo are next-day although they are 250–400 km; Bodø–Svolvær is close
 * as the crow flies but across the Vestfjorden (ferry or road through Narvik).
 */
export const TRANSIT_EXCEPTIONS: readonly TransitException[] = [
  { pair: ['OSL', 'BGO'], days: 1, reason: 'overnight trunk line' },
  { pair: ['OSL', 'TRD'], days: 1, reason: 'overnight trunk line' },
  { pair: ['OSL', 'SVG'], days: 1, reason: 'overnight trunk line' },
  { pair: ['OSL', 'KRS'], days: 1, reason: 'overnight trunk line' },
  { pair: ['BOO', 'SVJ'], days: 2, reason: 'across the Vestfjorden (ferry or road through Narvik)' },
];

/**
 * Svalbard has no road link: freight to and from Longyearbyen goes by air through Tromsø, so a pair
 * with it takes the mainland leg to Tromsø plus this many days.
 */
export const SVALBARD = { terminal: 'LYR', gateway: 'TOS', extraDays: 2 } as const;

export interface TransitRow {
  fromTerminal: string;
  toTerminal: string;
  days: number;
  basis: string;
}

/**
 * The transit time of every ordered terminal pair: the distance band, overridden by the documented
 * exceptions, with Svalbard routed through its gateway, and then no longer than the quickest way
 * through other terminals (`shortestRoutes`). Symmetric by construction.
 */
export function transitMatrix(candidates: readonly TerminalPoint[]): TransitRow[] {
  const byCode = new Map(candidates.map((t) => [t.code, t]));
  const exceptions = new Map<string, TransitException>();
  for (const e of TRANSIT_EXCEPTIONS) {
    exceptions.set(`${e.pair[0]}>${e.pair[1]}`, e);
    exceptions.set(`${e.pair[1]}>${e.pair[0]}`, e);
  }
  const mainland = (a: TerminalPoint, b: TerminalPoint): { days: number; basis: string } => {
    const e = exceptions.get(`${a.code}>${b.code}`);
    return e ? { days: e.days, basis: `exception: ${e.reason}` } : bandDays(distanceKm(a, b));
  };
  const gateway = byCode.get(SVALBARD.gateway);
  const rows: TransitRow[] = [];
  const sorted = [...candidates].sort((a, b) => a.code.localeCompare(b.code));
  for (const a of sorted) {
    for (const b of sorted) {
      const svalbard = a.code !== b.code && (a.code === SVALBARD.terminal || b.code === SVALBARD.terminal);
      let result: { days: number; basis: string };
      if (svalbard && gateway) {
        const other = a.code === SVALBARD.terminal ? b : a;
        const leg = other.code === gateway.code ? { days: 0 } : mainland(other, gateway);
        result = {
          days: leg.days + SVALBARD.extraDays,
          basis: `exception: Svalbard, air freight through ${gateway.code} (+${SVALBARD.extraDays} days)`,
        };
      } else {
        result = mainland(a, b);
      }
      rows.push({ fromTerminal: a.code, toTerminal: b.code, ...result });
    }
  }
  return shortestRoutes(rows);
}

/**
 * The rows with each pair's days cut to its quickest way through other terminals (Floyd–Warshall):
 * a pair is never promised slower than going through a hub, such as Oslo to Namsos (3 days by
 * distance) through Trondheim (1 + 1 on the overnight trunk line). A shortened pair names its way.
 */
export function shortestRoutes(rows: readonly TransitRow[]): TransitRow[] {
  const codes = [...new Set(rows.map((r) => r.fromTerminal))];
  const best = new Map(rows.map((r) => [`${r.fromTerminal}>${r.toTerminal}`, { ...r }]));
  const at = (a: string, b: string) => best.get(`${a}>${b}`);
  for (const via of codes) {
    for (const a of codes) {
      const first = at(a, via);
      if (!first || a === via) continue;
      for (const b of codes) {
        const second = at(via, b);
        const direct = at(a, b);
        if (!second || !direct || b === via || b === a) continue;
        const days = first.days + second.days;
        if (days < direct.days) {
          direct.days = days;
          direct.basis = `through ${via}: ${first.days} + ${second.days} days`;
        }
      }
    }
  }
  return rows.map((r) => best.get(`${r.fromTerminal}>${r.toTerminal}`) as TransitRow);
}

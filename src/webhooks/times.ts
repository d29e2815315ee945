// Oslo wall-clock conversions for the webhook record's `expires` (CONTRACT §2: datetimes without a
// zone are Oslo local time; `expires` is written with its UTC offset).

const ZONE = 'Europe/Oslo';

const parts = new Intl.DateTimeFormat('en-GB', {
  timeZone: ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

function wallClock(date: Date): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  const p: Record<string, number> = {};
  for (const { type, value } of parts.formatToParts(date)) if (type !== 'literal') p[type] = Number(value);
  return {
    y: p.year ?? 0,
    mo: p.month ?? 0,
    d: p.day ?? 0,
    h: p.hour ?? 0,
    mi: p.minute ?? 0,
    s: p.second ?? 0,
  };
}

/** Oslo's offset from UTC at an instant, in minutes (60 in winter, 120 in summer). */
function osloOffsetMinutes(date: Date): number {
  const w = wallClock(date);
  const asUtc = Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s);
  return Math.round((asUtc - Math.floor(date.getTime() / 1000) * 1000) / 60_000);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `2026-11-23T10:15:00+01:00`: Oslo local time with its offset, whole seconds. */
export function formatWithOffset(date: Date): string {
  const w = wallClock(date);
  const off = osloOffsetMinutes(date);
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  return `${w.y}-${pad(w.mo)}-${pad(w.d)}T${pad(w.h)}:${pad(w.mi)}:${pad(w.s)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

const INPUT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Reads an ISO 8601 date-time: with `Z` or an offset it is that instant; without a zone it is Oslo
 * local time; a bare date is Oslo midnight. Returns null when it is not a valid date-time.
 */
export function parseDateTime(text: string): Date | null {
  const m = INPUT.exec(text.trim());
  if (!m) return null;
  const [, ys, mos, ds, hs = '0', mis = '0', ss = '0', frac = '', zone] = m;
  const y = Number(ys);
  const mo = Number(mos);
  const d = Number(ds);
  const h = Number(hs);
  const mi = Number(mis);
  const s = Number(ss);
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null;
  const wall = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  if (new Date(wall).getUTCDate() !== d) return null; // 31 April and the like
  if (zone) {
    if (zone.toUpperCase() === 'Z') return new Date(wall);
    const z = zone.replace(':', '');
    const off = (Number(z.slice(1, 3)) * 60 + Number(z.slice(3, 5))) * (z.startsWith('-') ? -1 : 1);
    return new Date(wall - off * 60_000);
  }
  // Oslo local: guess with the offset at the wall time read as UTC, then correct once across DST.
  let instant = wall - osloOffsetMinutes(new Date(wall)) * 60_000;
  instant = wall - osloOffsetMinutes(new Date(instant)) * 60_000;
  return new Date(instant);
}

/** `date` plus whole calendar months (UTC), as the default expiry of a registration. */
export function addMonths(date: Date, months: number): Date {
  const d = new Date(date.getTime());
  const day = d.getUTCDate();
  d.setUTCMonth(d.getUTCMonth() + months);
  if (d.getUTCDate() !== day) d.setUTCDate(0); // 31 Dec + 2 months → end of February
  return d;
}

import { TZDate } from '@date-fns/tz';

export const OSLO = 'Europe/Oslo';

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,7})?)?)?$/;
const ENDS_ZONED = /(Z|[+-]\d{2}:?\d{2})$/i;
const ZONED = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,7}))?)?(Z|[+-]\d{2}:?\d{2})$/i;
const HOUR_MS = 3_600_000;

/** True when the fields name a real wall-clock time of a real day (not 2026-11-31, not 24:00). */
function realFields(y: number, mo: number, d: number, h: number, mi: number, s: number): boolean {
  if (h > 23 || mi > 59 || s > 59) return false;
  const day = new Date(Date.UTC(y, mo - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d;
}

/**
 * The instant of a strict ISO 8601 date-time with `Z` or an offset (`2026-11-26T10:00:00.123+01:00`),
 * or null when it is anything else or names no real time: `new Date` would roll 2026-11-31 over to
 * December and read free-form text.
 */
export function parseZoned(value: string): Date | null {
  const m = ZONED.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as number[];
  if (!realFields(y ?? 0, mo ?? 0, d ?? 0, h ?? 0, mi ?? 0, s ?? 0)) return null;
  const zone = (m[8] ?? 'Z').toUpperCase().replace(':', '');
  const offsetHours = zone === 'Z' ? 0 : Number(zone.slice(1, 3));
  const offsetMinutes = zone === 'Z' ? 0 : Number(zone.slice(3, 5));
  if (offsetHours > 14 || offsetMinutes > 59) return null;
  const offsetMs = (zone.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const ms = Number((m[7] ?? '').slice(0, 3).padEnd(3, '0'));
  return new Date(Date.UTC(y ?? 0, (mo ?? 1) - 1, d, h, mi, s, ms) - offsetMs);
}

/**
 * The instant of an ISO 8601 date-time. Without a zone it is Europe/Oslo local time (CONTRACT §2);
 * with `Z` or an offset it is taken as given. Null when it is not a real date-time. As Temporal's
 * "compatible" choice: a local time the clocks pass twice (02:30 on the last Sunday of October) is
 * the first of the two, one they skip (02:30 on the last Sunday of March) is read an hour later.
 */
export function parseOsloDateTime(value: string): Date | null {
  if (ENDS_ZONED.test(value)) return parseZoned(value);
  const m = LOCAL.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(
    Number,
  ) as number[];
  if (!realFields(y ?? 0, mo ?? 0, d ?? 0, h ?? 0, mi ?? 0, s ?? 0)) return null;
  const instant = new TZDate(y ?? 0, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, s ?? 0, OSLO);
  const hourBefore = new TZDate(instant.getTime() - HOUR_MS, OSLO);
  const repeated =
    hourBefore.getHours() === h && hourBefore.getMinutes() === mi && hourBefore.getDate() === d;
  return new Date(repeated ? hourBefore.getTime() : instant.getTime());
}

/** `YYYY-MM-DDTHH:mm:ss` in Oslo local time, the response form of CONTRACT §2. */
export function formatOslo(instant: Date): string {
  const t = new TZDate(instant.getTime(), OSLO);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${t.getFullYear()}-${p(t.getMonth() + 1)}-${p(t.getDate())}T${p(t.getHours())}:${p(t.getMinutes())}:${p(t.getSeconds())}`;
}

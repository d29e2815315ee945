// Oslo wall-clock conversions for the webhook record's `expires` (CONTRACT §2: datetimes without a
// zone are Oslo local time; `expires` is written with its UTC offset).

import { parseOsloDateTime } from '../lib/oslo-time';

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

/**
 * The latest `expires` a record can write: a later instant's Oslo year has five digits, which no
 * ISO 8601 reader (Kolli's own included) takes back. `9999-12-31T23:59:59` is .NET's `DateTime.MaxValue`
 * to the second, which clients send for "never".
 */
export const LATEST_EXPIRES_TEXT = '9999-12-31T23:59:59';

/** `2026-11-23T10:15:00+01:00`: Oslo local time with its offset, whole seconds. */
export function formatWithOffset(date: Date): string {
  const w = wallClock(date);
  const off = osloOffsetMinutes(date);
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  return `${w.y}-${pad(w.mo)}-${pad(w.d)}T${pad(w.h)}:${pad(w.mi)}:${pad(w.s)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/**
 * Reads an ISO 8601 date-time as the rest of the API does (`parseOsloDateTime`): with `Z` or an
 * offset it is that instant; without a zone it is Oslo local time (the first of an hour the clocks
 * pass twice); a bare date is Oslo midnight. A space may stand for the `T`, and a fraction of 8 or 9
 * digits is read to its first 7. Null when it is not a valid date-time.
 */
export function parseDateTime(text: string): Date | null {
  const iso = text
    .trim()
    .replace(/^(\d{4}-\d{2}-\d{2}) (?=\d)/, '$1T')
    .replace(/(\.\d{7})\d{1,2}(?=$|Z|z|[+-])/, '$1');
  return parseOsloDateTime(iso);
}

/** `date` plus whole calendar months (UTC), as the default expiry of a registration. */
export function addMonths(date: Date, months: number): Date {
  const d = new Date(date.getTime());
  const day = d.getUTCDate();
  d.setUTCMonth(d.getUTCMonth() + months);
  if (d.getUTCDate() !== day) d.setUTCDate(0); // 31 Dec + 2 months → end of February
  return d;
}

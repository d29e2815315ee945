import { TZDate } from '@date-fns/tz';

export const OSLO = 'Europe/Oslo';

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,7})?)?)?$/;
const ZONED = /(Z|[+-]\d{2}:?\d{2})$/;

/**
 * The instant of an ISO 8601 date-time. Without a zone it is Europe/Oslo local time (CONTRACT §2);
 * with `Z` or an offset it is taken as given. Null when it is not a real date-time.
 */
export function parseOsloDateTime(value: string): Date | null {
  if (ZONED.test(value)) {
    const d = new Date(value);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  const m = LOCAL.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(
    Number,
  ) as number[];
  if ((h ?? 0) > 23 || (mi ?? 0) > 59 || (s ?? 0) > 59) return null;
  const instant = new TZDate(y ?? 0, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, s ?? 0, OSLO);
  // Reject dates that roll over (2026-02-30).
  if (instant.getFullYear() !== y || instant.getMonth() !== (mo ?? 1) - 1 || instant.getDate() !== d)
    return null;
  return new Date(instant.getTime());
}

/** `YYYY-MM-DDTHH:mm:ss` in Oslo local time, the response form of CONTRACT §2. */
export function formatOslo(instant: Date): string {
  const t = new TZDate(instant.getTime(), OSLO);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${t.getFullYear()}-${p(t.getMonth() + 1)}-${p(t.getDate())}T${p(t.getHours())}:${p(t.getMinutes())}:${p(t.getSeconds())}`;
}

import Holidays from 'date-holidays';

/**
 * The Norwegian working-day calendar. Dates are `YYYY-MM-DD` strings in Europe/Oslo; arithmetic
 * runs on UTC midnights so daylight-saving changes never shift a date.
 */

export const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/**
 * The calendar's range. Dates outside it are not dates to a carrier, and near year 9999 date
 * arithmetic leaves the `YYYY-MM-DD` form, so a search for the next working day would never end.
 */
export const FIRST_DATE = '1900-01-01';
export const LAST_DATE = '2999-12-31';

/** True for a real calendar date in `YYYY-MM-DD` form within the calendar's range (rejects 2026-02-30). */
export function isDate(value: string): boolean {
  if (!DATE_PATTERN.test(value) || value < FIRST_DATE || value > LAST_DATE) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

const LOCAL_DATE_TIME = /^(\d{4}-\d{2}-\d{2})(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,7})?)?)?$/;

/**
 * The calendar date of a request date or local datetime (`2026-11-23`, `2026-11-23T10:00:00`), as
 * CONTRACT §2 lets every date parameter be given; null when it is neither, or no real date.
 */
export function dateOfDateTime(value: string): string | null {
  const date = LOCAL_DATE_TIME.exec(value)?.[1];
  return date && isDate(date) ? date : null;
}

const toMs = (date: string) => Date.parse(`${date}T00:00:00Z`);
const fromMs = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function addDays(date: string, days: number): string {
  const result = fromMs(toMs(date) + days * DAY_MS);
  // A guard, not a rule: inputs are checked with `isDate`, and a transit time is days, not centuries.
  if (result < FIRST_DATE || result > '9999-12-31' || !DATE_PATTERN.test(result)) {
    throw new RangeError(`${date} + ${days} days is outside the calendar`);
  }
  return result;
}

/** Whole calendar days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number => Math.round((toMs(to) - toMs(from)) / DAY_MS);

const holidays = new Holidays('NO');
const byYear = new Map<number, ReadonlyMap<string, string>>();

/**
 * Days that are not working days although they fall on Monday–Friday: the statutory public
 * holidays (`type: 'public'` in date-holidays, which includes 1 and 17 May) plus Christmas Eve and
 * New Year's Eve, when carriers do not deliver. Keyed by date, so a day that is two holidays at once
 * (17 May 2027 is Constitution Day and Whit Monday) counts once.
 */
export function holidaysOf(year: number): ReadonlyMap<string, string> {
  const cached = byYear.get(year);
  if (cached) return cached;
  const days = new Map<string, string>();
  for (const h of holidays.getHolidays(year) || []) {
    if (h.type !== 'public') continue;
    const date = h.date.slice(0, 10);
    days.set(date, days.has(date) ? `${days.get(date)} / ${h.name}` : h.name);
  }
  days.set(`${year}-12-24`, days.get(`${year}-12-24`) ?? 'Julaften');
  days.set(`${year}-12-31`, days.get(`${year}-12-31`) ?? 'Nyttårsaften');
  const sorted = new Map([...days].sort(([a], [b]) => a.localeCompare(b)));
  byYear.set(year, sorted);
  return sorted;
}

/** Monday–Friday and not a holiday of `holidaysOf`. */
export function isWorkingDay(date: string): boolean {
  const weekday = new Date(toMs(date)).getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  return !holidaysOf(Number(date.slice(0, 4))).has(date);
}

/** `date` itself when it is a working day, else the next one. */
export function workingDayOnOrAfter(date: string): string {
  let d = date;
  while (!isWorkingDay(d)) d = addDays(d, 1);
  return d;
}

/** The first working day strictly after `date`. */
export const nextWorkingDay = (date: string): string => workingDayOnOrAfter(addDays(date, 1));

/** The `n`th working day after `date` (`n` = 0 gives `date` itself). */
export function addWorkingDays(date: string, n: number): string {
  let d = date;
  for (let i = 0; i < n; i++) d = nextWorkingDay(d);
  return d;
}

/** Every working day in `[from, to]`, in order. */
export function workingDaysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) if (isWorkingDay(d)) days.push(d);
  return days;
}

const osloParts = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Europe/Oslo',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

// The last minute asked about: every booking asks for "now", and formatting it is the dearest step.
let lastMinute = Number.NaN;
let lastAnswer: Readonly<{ date: string; time: string }> = { date: '', time: '' };

/** The Europe/Oslo calendar date and `HH:mm` time of an instant. */
export function osloDateTime(instant: Date): { date: string; time: string } {
  // Oslo's offset is whole hours, so the answer is the same for every instant of one UTC minute.
  const minute = Math.floor(instant.getTime() / 60_000);
  if (minute !== lastMinute) {
    const p = Object.fromEntries(osloParts.formatToParts(instant).map((x) => [x.type, x.value]));
    lastAnswer = { date: `${p.year}-${p.month}-${p.day}`, time: `${p.hour}:${p.minute}` };
    lastMinute = minute;
  }
  return { ...lastAnswer };
}

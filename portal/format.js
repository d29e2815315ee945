// Norwegian formats for numbers, money and dates (Intl, nb-NO).

const money = new Intl.NumberFormat('nb-NO', { style: 'currency', currency: 'NOK' });
const number = new Intl.NumberFormat('nb-NO', { maximumFractionDigits: 2 });
const date = new Intl.DateTimeFormat('nb-NO', { dateStyle: 'medium', timeZone: 'Europe/Oslo' });
const dateTime = new Intl.DateTimeFormat('nb-NO', {
  dateStyle: 'short',
  timeStyle: 'medium',
  timeZone: 'Europe/Oslo',
});

export const kr = (v) => (v === null || v === undefined || v === '' ? '–' : money.format(Number(v)));
export const num = (v) => (v === null || v === undefined || v === '' ? '–' : number.format(Number(v)));

/** A spec date or datetime: without a zone it is Oslo wall-clock time, shown as written. */
function toDate(v) {
  if (!v) return null;
  if (/[zZ]|[+-]\d\d:\d\d$/.test(v)) return new Date(v);
  const [d, t = '00:00:00'] = String(v).split('T');
  // Shown in Oslo time: read the wall-clock parts as UTC and format them in UTC.
  return { wall: new Date(`${d}T${t.slice(0, 8)}Z`) };
}

export function day(v) {
  const d = toDate(v);
  if (!d) return '–';
  if (d.wall)
    return new Intl.DateTimeFormat('nb-NO', { dateStyle: 'medium', timeZone: 'UTC' }).format(d.wall);
  return date.format(d);
}

// Made once: a table formats a moment per row.
const wallDateTime = new Intl.DateTimeFormat('nb-NO', {
  dateStyle: 'short',
  timeStyle: 'medium',
  timeZone: 'UTC',
});
const osloIsoDate = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Oslo' });

export function moment(v) {
  const d = toDate(v);
  if (!d) return '–';
  if (d.wall) {
    return wallDateTime.format(d.wall);
  }
  return dateTime.format(d);
}

const osloParts = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/Oslo',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** How far Oslo's clock is ahead of UTC at the instant `ms`. */
function osloOffsetMs(ms) {
  const p = Object.fromEntries(osloParts.formatToParts(new Date(ms)).map((x) => [x.type, Number(x.value)]));
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant of a spec datetime, in milliseconds: without a zone it is Oslo wall-clock time, whatever
 * zone the browser is in (a webhook signature signs the instant).
 */
export function instantMs(v) {
  const d = toDate(v);
  if (!d) return Number.NaN;
  if (!d.wall) return d.getTime();
  const wall = d.wall.getTime();
  // The offset at the instant itself, found again from the first guess (a clock change between).
  return wall - osloOffsetMs(wall - osloOffsetMs(wall));
}

/** Today in Oslo as YYYY-MM-DD. */
export function today(offsetDays = 0) {
  const d = new Date(Date.now() + offsetDays * 86_400_000);
  return osloIsoDate.format(d);
}

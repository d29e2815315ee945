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

/** Today in Oslo as YYYY-MM-DD. */
export function today(offsetDays = 0) {
  const d = new Date(Date.now() + offsetDays * 86_400_000);
  return osloIsoDate.format(d);
}

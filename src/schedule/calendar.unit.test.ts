import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { formatOslo } from '../lib/oslo-time';
import {
  addDays,
  addWorkingDays,
  daysBetween,
  holidaysOf,
  isDate,
  isWorkingDay,
  nextWorkingDay,
  osloDateTime,
  workingDayOnOrAfter,
  workingDaysBetween,
} from './calendar';
import { planOf } from './service';

const notWorking = (dates: string[]) => dates.filter((d) => isWorkingDay(d));

describe('working days', () => {
  test('weekends are not working days; ordinary weekdays are', () => {
    expect(isWorkingDay('2026-11-21')).toBe(false); // Saturday
    expect(isWorkingDay('2026-11-22')).toBe(false); // Sunday
    expect(isWorkingDay('2026-11-23')).toBe(true); // Monday
    expect(isWorkingDay('2026-11-27')).toBe(true); // Friday
  });

  test('Easter 2026: Maundy Thursday, Good Friday and Easter Monday are holidays', () => {
    expect(notWorking(['2026-04-02', '2026-04-03', '2026-04-06'])).toEqual([]);
    expect(isWorkingDay('2026-04-01')).toBe(true);
    expect(isWorkingDay('2026-04-07')).toBe(true);
    expect(workingDaysBetween('2026-03-30', '2026-04-10')).toEqual([
      '2026-03-30',
      '2026-03-31',
      '2026-04-01',
      '2026-04-07',
      '2026-04-08',
      '2026-04-09',
      '2026-04-10',
    ]);
  });

  test('Easter 2027 falls in March', () => {
    expect(notWorking(['2027-03-25', '2027-03-26', '2027-03-29'])).toEqual([]);
    expect(isWorkingDay('2027-03-24')).toBe(true);
    expect(isWorkingDay('2027-03-30')).toBe(true);
  });

  test('Ascension Day and Whit Monday', () => {
    expect(isWorkingDay('2026-05-14')).toBe(false); // Ascension 2026
    expect(isWorkingDay('2026-05-25')).toBe(false); // Whit Monday 2026
    expect(isWorkingDay('2027-05-06')).toBe(false); // Ascension 2027
    expect(isWorkingDay('2026-05-15')).toBe(true);
  });

  test('1 May and 17 May are holidays on weekdays', () => {
    expect(isWorkingDay('2026-05-01')).toBe(false); // Friday
    expect(isWorkingDay('2027-05-17')).toBe(false);
    expect(isWorkingDay('2026-05-18')).toBe(true); // the Monday after 17 May 2026 (a Sunday)
  });

  test('17 May 2027 is Constitution Day and Whit Monday at once, and counts once', () => {
    const days = holidaysOf(2027);
    const may17 = [...days.keys()].filter((d) => d === '2027-05-17');
    expect(may17).toHaveLength(1);
    expect(days.get('2027-05-17')).toMatch(/\//);
    // The week of 17 May 2027 has four working days, not three.
    expect(workingDaysBetween('2027-05-17', '2027-05-21')).toEqual([
      '2027-05-18',
      '2027-05-19',
      '2027-05-20',
      '2027-05-21',
    ]);
  });

  test('the holidays of 2026 and 2027 are exactly the statutory ones plus 24 and 31 December', () => {
    expect([...holidaysOf(2026).keys()]).toEqual([
      '2026-01-01',
      '2026-04-02',
      '2026-04-03',
      '2026-04-05',
      '2026-04-06',
      '2026-05-01',
      '2026-05-14',
      '2026-05-17',
      '2026-05-24',
      '2026-05-25',
      '2026-12-24',
      '2026-12-25',
      '2026-12-26',
      '2026-12-31',
    ]);
    expect([...holidaysOf(2027).keys()]).toEqual([
      '2027-01-01',
      '2027-03-25',
      '2027-03-26',
      '2027-03-28',
      '2027-03-29',
      '2027-05-01',
      '2027-05-06',
      '2027-05-16',
      '2027-05-17',
      '2027-12-24',
      '2027-12-25',
      '2027-12-26',
      '2027-12-31',
    ]);
  });

  test('Christmas and New Year: 24, 25, 26 and 31 December and 1 January are not working days', () => {
    expect(workingDaysBetween('2026-12-21', '2027-01-05')).toEqual([
      '2026-12-21',
      '2026-12-22',
      '2026-12-23',
      '2026-12-28',
      '2026-12-29',
      '2026-12-30',
      '2027-01-04',
      '2027-01-05',
    ]);
    expect(isWorkingDay('2027-12-24')).toBe(false); // a Friday
    expect(isWorkingDay('2027-12-31')).toBe(false); // a Friday
  });

  test('stepping over holidays and weekends', () => {
    expect(workingDayOnOrAfter('2026-12-24')).toBe('2026-12-28');
    expect(nextWorkingDay('2026-04-01')).toBe('2026-04-07');
    expect(addWorkingDays('2026-12-23', 2)).toBe('2026-12-29');
    expect(addWorkingDays('2026-11-23', 0)).toBe('2026-11-23');
  });

  test('dates are checked for being real and survive daylight-saving changes', () => {
    expect(isDate('2026-02-30')).toBe(false);
    expect(isDate('2028-02-29')).toBe(true);
    expect(isDate('2026-1-01')).toBe(false);
    expect(addDays('2026-03-28', 2)).toBe('2026-03-30');
    expect(daysBetween('2026-10-24', '2026-10-26')).toBe(2);
  });

  test('the Oslo date of an instant follows the local time zone', () => {
    expect(osloDateTime(new Date('2026-11-23T23:30:00Z'))).toEqual({ date: '2026-11-24', time: '00:30' });
    expect(osloDateTime(new Date('2026-07-01T21:59:00Z'))).toEqual({ date: '2026-07-01', time: '23:59' });
  });
});

const dateArb = fc.integer({ min: 0, max: 365 * 6 }).map((n) => addDays('2025-01-01', n));

describe('properties', () => {
  test('every working day of an interval is Monday–Friday and not a holiday; the others are weekends or holidays', () => {
    fc.assert(
      fc.property(dateArb, fc.integer({ min: 0, max: 60 }), (from, span) => {
        const to = addDays(from, span);
        const days = new Set(workingDaysBetween(from, to));
        for (let d = from; d <= to; d = addDays(d, 1)) {
          const weekday = new Date(`${d}T00:00:00Z`).getUTCDay();
          const free = weekday === 0 || weekday === 6 || holidaysOf(Number(d.slice(0, 4))).has(d);
          expect(days.has(d)).toBe(!free);
        }
      }),
    );
  });

  test('every offered delivery date is a working day within the earliest date and 3 days after it', () => {
    const window = { From: '08:00', To: '16:00' };
    fc.assert(
      fc.property(dateArb, fc.integer({ min: 1, max: 8 }), (pickupDate, transit) => {
        const plan = planOf(pickupDate, transit, { PickupWindow: window, DeliveryWindow: window });
        expect(isWorkingDay(plan.PickupDate)).toBe(true);
        expect(plan.PickupDate >= pickupDate).toBe(true);
        expect(isWorkingDay(plan.EarliestDeliveryDate)).toBe(true);
        // Exactly `transit` working days after the pickup.
        expect(workingDaysBetween(addDays(plan.PickupDate, 1), plan.EarliestDeliveryDate)).toHaveLength(
          transit,
        );
        expect(plan.DeliveryDates[0]).toBe(plan.EarliestDeliveryDate);
        for (const d of plan.DeliveryDates) {
          expect(isWorkingDay(d)).toBe(true);
          expect(d >= plan.EarliestDeliveryDate && d <= addDays(plan.EarliestDeliveryDate, 3)).toBe(true);
        }
        // None left out.
        expect(plan.DeliveryDates).toEqual(
          workingDaysBetween(plan.EarliestDeliveryDate, addDays(plan.EarliestDeliveryDate, 3)),
        );
      }),
    );
  });
});

test('the calendar ends: far dates are no dates, and arithmetic never leaves the date form', () => {
  expect(isDate('2999-12-31')).toBe(true);
  expect(isDate('3000-01-01')).toBe(false);
  expect(isDate('9999-12-31')).toBe(false);
  expect(isDate('1899-12-31')).toBe(false);
  expect(() => addDays('9999-12-31', 1)).toThrow(RangeError);
});

test('osloDateTime answers each instant as the time-zone library does, across the summer-time switches, minute after minute', () => {
  // The oracle: the same instant in Oslo time by @date-fns/tz (lib/oslo-time.ts), not by Intl.
  const fresh = (d: Date) => ({ date: formatOslo(d).slice(0, 10), time: formatOslo(d).slice(11, 16) });
  // Around 2026-03-29 01:00 UTC (02:00 → 03:00) and 2026-10-25 01:00 UTC (03:00 → 02:00).
  for (const start of [Date.UTC(2026, 2, 29, 0, 58, 30), Date.UTC(2026, 9, 25, 0, 58, 30)]) {
    for (let s = 0; s < 300; s += 15) {
      const instant = new Date(start + s * 1000);
      expect(osloDateTime(instant), instant.toISOString()).toEqual(fresh(instant));
    }
  }
  const answer = osloDateTime(new Date(Date.UTC(2026, 0, 1, 12, 0)));
  answer.time = 'changed';
  expect(osloDateTime(new Date(Date.UTC(2026, 0, 1, 12, 0, 30))).time).toBe('13:00');
});

import type { CatalogService, Product, TimeWindow } from '../catalog/service';
import { Violations } from '../lib/errors';
import type { Route, TerminalService } from '../reference-data/terminals';
import {
  addDays,
  addWorkingDays,
  dateOfDateTime,
  daysBetween,
  isDate,
  nextWorkingDay,
  osloDateTime,
  workingDayOnOrAfter,
  workingDaysBetween,
} from './calendar';

/** Orders placed after this Oslo time are picked up the next working day (booking asks the schedule). */
export const PICKUP_CUTOFF = '16:00';
/** The spec's "+3 days": desired dates may lie up to this many calendar days after the earliest date. */
export const DESIRED_DATE_SLACK_DAYS = 3;
/** The longest `from`–`to` interval of `GET /v1/schedule/workingdays`, in calendar days. */
export const MAX_WORKING_DAYS_INTERVAL = 366;

/** The delivery plan of a route for a pickup date (`GET /v1/schedule/deliverydates`). */
export interface DeliveryPlan {
  /** The pickup date the plan starts from: the requested one, or the next working day when it is none. */
  PickupDate: string;
  /** Pickup date plus the transit days of the route, counted in working days. */
  EarliestDeliveryDate: string;
  /** The dates a customer may book as `DeliveryDate`: working days from the earliest up to 3 calendar days after it. */
  DeliveryDates: string[];
  PickupWindow: TimeWindow;
  DeliveryWindow: TimeWindow;
}

export interface DeliveryPlanInput {
  fromZip: string;
  toZip: string;
  productCode: string;
  /** `YYYY-MM-DD`. */
  pickupDate: string;
}

/**
 * The plan of a route from its transit days: pure, so tests can check it for any date.
 * A pickup date that is no working day moves to the next working day.
 */
export function planOf(
  pickupDate: string,
  transitDays: number,
  windows: { PickupWindow: TimeWindow; DeliveryWindow: TimeWindow },
): DeliveryPlan {
  const pickup = workingDayOnOrAfter(pickupDate);
  const earliest = addWorkingDays(pickup, transitDays);
  return {
    PickupDate: pickup,
    EarliestDeliveryDate: earliest,
    DeliveryDates: workingDaysBetween(earliest, addDays(earliest, DESIRED_DATE_SLACK_DAYS)),
    PickupWindow: { From: windows.PickupWindow.From, To: windows.PickupWindow.To },
    DeliveryWindow: { From: windows.DeliveryWindow.From, To: windows.DeliveryWindow.To },
  };
}

export type ScheduleService = ReturnType<typeof createScheduleService>;

export interface ScheduleDeps {
  catalog: CatalogService;
  terminals: TerminalService;
  clock?: () => Date;
}

/** Working days, pickup dates and delivery dates (`docs/catalogue.md`). */
export function createScheduleService(deps: ScheduleDeps) {
  const clock = deps.clock ?? (() => new Date());

  /** The first pickup date of an order placed now: today, or after the cut-off the next working day. */
  function earliestPickupDate(): string {
    const { date, time } = osloDateTime(clock());
    return time < PICKUP_CUTOFF ? workingDayOnOrAfter(date) : nextWorkingDay(date);
  }

  return {
    earliestPickupDate,

    /** Transit days and terminals of two postal codes, or null when a code is unknown. */
    route: (fromZip: string, toZip: string): Promise<Route | null> => deps.terminals.route(fromZip, toZip),

    /**
     * The delivery plan booking validates `DeliveryDate` and `PickupDate` with; null when a postal
     * code or the product is unknown.
     */
    async deliveryPlan(input: DeliveryPlanInput): Promise<DeliveryPlan | null> {
      if (!isDate(input.pickupDate)) return null;
      const [product, route] = await Promise.all([
        deps.catalog.product(input.productCode),
        deps.terminals.route(input.fromZip, input.toZip),
      ]);
      if (!product || !route) return null;
      return planOf(input.pickupDate, route.transitDays, product);
    },

    /**
     * `GET /v1/schedule/deliverydates`: like `deliveryPlan`, but every unknown or malformed value is a
     * 400 naming its query parameter. The plan starts at the earliest pickup date when `pickupDate` is
     * absent or before it: a day booking can no longer plan from would offer dates it then refuses.
     */
    async deliveryDates(query: {
      fromZip: string;
      toZip: string;
      productCode: string;
      pickupDate?: string;
    }): Promise<DeliveryPlan> {
      const v = new Violations();
      const earliest = earliestPickupDate();
      const asked = query.pickupDate === undefined ? earliest : dateOfDateTime(query.pickupDate);
      const pickupDate = asked !== null && asked < earliest ? earliest : asked;
      v.check('pickupDate', pickupDate !== null, 'The pickupDate field must be a date (YYYY-MM-DD).');
      const [product, terminalOf] = await Promise.all([
        deps.catalog.product(query.productCode),
        deps.terminals.terminalsOf([query.fromZip, query.toZip]),
      ]);
      v.check('productCode', product !== null, `Product ${query.productCode} does not exist.`);
      const terminal = (field: 'fromZip' | 'toZip'): string | null => {
        const code = query[field];
        const t = terminalOf.get(code);
        if (t === undefined) v.add(field, `Postal code ${code} is not in the postal register.`);
        else if (t === null) v.add(field, `Postal code ${code} is not served by any terminal.`);
        return t ?? null;
      };
      const fromTerminal = terminal('fromZip');
      const toTerminal = terminal('toZip');
      const days =
        fromTerminal && toTerminal ? await deps.terminals.transitDays(fromTerminal, toTerminal) : null;
      if (fromTerminal && toTerminal) {
        v.check('toZip', days !== null, `No transit time is known from ${fromTerminal} to ${toTerminal}.`);
      }
      v.throwIfAny();
      return planOf(pickupDate as string, days as number, product as Product);
    },

    /** `GET /v1/schedule/workingdays`: the working days of `[from, to]`. */
    workingDays(from: string, to: string): { WorkingDays: string[] } {
      const v = new Violations();
      const a = dateOfDateTime(from);
      const b = dateOfDateTime(to);
      v.check('from', a !== null, 'The from field must be a date (YYYY-MM-DD).');
      v.check('to', b !== null, 'The to field must be a date (YYYY-MM-DD).');
      if (a !== null && b !== null) {
        v.check('to', a <= b, 'The to date must not be before the from date.');
        v.check(
          'to',
          daysBetween(a, b) <= MAX_WORKING_DAYS_INTERVAL,
          `The interval may span at most ${MAX_WORKING_DAYS_INTERVAL} days.`,
        );
      }
      v.throwIfAny();
      return { WorkingDays: workingDaysBetween(a ?? from, b ?? to) };
    },
  };
}

import { Type } from 'typebox';
import { TimeWindowSchema } from '../catalog/schemas';
import { OSLO_DATETIME } from '../http/binding';
import { named } from '../http/schemas';

const Zip = (name: string) =>
  Type.String({
    pattern: '^[0-9]{4}$',
    'x-error': `The ${name} field must be a Norwegian postal code of 4 digits.`,
    description: 'Norwegian postal code.',
  });

/** A date, or a datetime of which the date counts (CONTRACT §2). */
const DateParam = (name: string, description: string) =>
  Type.String({
    pattern:
      '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,7})?)?)?$',
    'x-error': `The ${name} field must be a date (YYYY-MM-DD).`,
    [OSLO_DATETIME]: true,
    description,
  });

export const DeliveryDatesQuery = Type.Object({
  fromZip: Zip('fromZip'),
  toZip: Zip('toZip'),
  productCode: Type.String({
    pattern: '^[0-9A-Za-z]{1,4}$',
    'x-error': 'The productCode field must be a product code (1 to 4 letters or digits).',
  }),
  pickupDate: Type.Optional(
    DateParam(
      'pickupDate',
      'Pickup date; default the earliest pickup date of an order placed now (today, on a working day before 16:00 Oslo time; else the next working day). A day before that earliest date plans from it, and a day that is no working day moves to the next working day.',
    ),
  ),
});

export const DeliveryPlanSchema = named(
  'DeliveryDates',
  Type.Object(
    {
      PickupDate: Type.String({ format: 'date' }),
      EarliestDeliveryDate: Type.String({
        format: 'date',
        description: 'Pickup date plus the transit days between the terminals, in working days.',
      }),
      DeliveryDates: Type.Array(Type.String({ format: 'date' }), {
        description:
          'The valid desired delivery dates (`DeliveryDate`, service 35 Fix Day): working days from the earliest date up to 3 calendar days after it.',
      }),
      PickupWindow: TimeWindowSchema,
      DeliveryWindow: TimeWindowSchema,
    },
    {
      examples: [
        {
          PickupDate: '2026-11-23',
          EarliestDeliveryDate: '2026-11-24',
          DeliveryDates: ['2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27'],
          PickupWindow: { From: '08:00', To: '16:00' },
          DeliveryWindow: { From: '08:00', To: '16:00' },
        },
      ],
    },
  ),
);

export const WorkingDaysQuery = Type.Object({
  from: DateParam('from', 'First day of the interval.'),
  to: DateParam('to', 'Last day of the interval (inclusive), at most 366 days after `from`.'),
});

export const WorkingDaysSchema = Type.Object(
  {
    WorkingDays: Type.Array(Type.String({ format: 'date' }), {
      description: 'Monday to Friday, minus Norwegian public holidays and 24 and 31 December.',
    }),
  },
  { examples: [{ WorkingDays: ['2026-12-22', '2026-12-23', '2026-12-28', '2026-12-29', '2026-12-30'] }] },
);

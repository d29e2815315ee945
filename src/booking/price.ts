import { Type } from 'typebox';
import { named } from '../http/schemas';
import { DomainError, ValidationFailed } from '../lib/errors';
import { toDecimal } from '../lib/units';
import type { BookingDeps } from './deps';
import type { FrozenPrice } from './model';
import { priceOf } from './publish';
import { STATUS } from './rules';
import { createBookingStore, type ShipmentRow } from './store/shipments';

/**
 * `GET /v2/Shipment/{id}/price`: the cost lines a published shipment was booked at — the lines its
 * invoice carries, in the invoice reports' names (`CostCode`, `CostName`, `AmountKr`) — or, for a
 * shipment not yet published, what it would cost if it were published now (`Quote: true`).
 */
export const ShipmentPrice = named(
  'ShipmentPrice',
  Type.Object(
    {
      ShipmentId: Type.String(),
      ShipmentStatus: Type.Integer({
        description: '0 Draft, 1 ReadyForPublish, 2 Published: the number, as every response gives it.',
      }),
      Quote: Type.Boolean({
        description:
          'false: the price frozen when the shipment was published, which its invoice carries; true: the current quote of a shipment not yet published, which may change until it is.',
      }),
      Currency: Type.Literal('NOK'),
      TariffVersion: Type.String({
        description: 'The tariff version (its ValidFrom date) the price comes from.',
      }),
      ChargeableWeightKg: Type.Number(),
      Lines: Type.Array(
        Type.Object({
          CostCode: Type.String({ description: 'As `Details[].CostCode` of the v2 invoice report.' }),
          CostName: Type.String(),
          AmountKr: Type.Number({ description: 'NOK excluding VAT, to the øre.' }),
        }),
      ),
      Total: Type.Number({ description: 'The sum of the lines, NOK excluding VAT.' }),
    },
    { $id: 'ShipmentPrice' },
  ),
);

type ShipmentPriceT = {
  ShipmentId: string;
  ShipmentStatus: number;
  Quote: boolean;
  Currency: 'NOK';
  TariffVersion: string;
  ChargeableWeightKg: number;
  Lines: { CostCode: string; CostName: string; AmountKr: number }[];
  Total: number;
};

const answer = (row: ShipmentRow, price: FrozenPrice, quote: boolean): ShipmentPriceT => ({
  ShipmentId: row.id,
  ShipmentStatus: row.status,
  Quote: quote,
  Currency: 'NOK',
  TariffVersion: price.TariffVersion,
  ChargeableWeightKg: price.ChargeableWeightKg,
  Lines: price.Lines.map((l) => ({
    CostCode: l.CostTypeCode,
    CostName: l.Description,
    AmountKr: toDecimal(l.AmountOre),
  })),
  Total: toDecimal(price.TotalOre),
});

/** The frozen price of a published shipment, or the current quote of another one the caller may see. */
export async function shipmentPrice(
  deps: Pick<BookingDeps, 'db' | 'pricing' | 'schedule'>,
  row: ShipmentRow,
  payer: string,
): Promise<ShipmentPriceT> {
  if (row.status === STATUS.Published) {
    if (!row.price) throw new Error(`published shipment ${row.id} has no frozen price`);
    return answer(row, row.price, false);
  }
  const parcels = await createBookingStore(deps.db).parcelsOf(row.id);
  try {
    const price = await priceOf(
      deps.pricing,
      row.customerNr,
      payer,
      {
        productCode: row.productCode,
        deliveryType: row.deliveryType === 0 ? 0 : 1,
        services: row.services,
        unitCode: row.unitCode,
      },
      row.addresses,
      parcels,
      row.desiredPickupDate ?? deps.schedule.earliestPickupDate(),
    );
    return answer(row, price, true);
  } catch (e) {
    // A draft may still lack what its price depends on: say what, as a conflict with its state.
    if (e instanceof ValidationFailed) {
      const missing = Object.values(e.errors).flat().join(' ');
      throw new DomainError(
        'conflict',
        'shipment_not_priceable',
        `Shipment ${row.id} cannot be priced yet: ${missing}`,
      );
    }
    throw e;
  }
}

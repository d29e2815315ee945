import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import { createBookingPricing, type ShipmentPriceInput } from './pricing';

/**
 * A booked shipment is priced by pricing's own quote (CONTRACT §6): the frozen price equals the
 * calculator's answer for the same inputs, and pricing's complaints carry the booking's field names.
 * On the shipped demo tariff (data/tariffs/2026-01-01.json).
 */

let ctx: TestContext;
let key: string; // price scope, customer 2000 (10 % discount, special unit code 51)

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => new Date('2026-11-23T09:00:00Z') });
  await ctx.services.customers.create({
    CustomerNr: '2000',
    Name: 'Avtale AS',
    Agreement: { FreightDiscountPercent: 10, SpecialUnitCodes: ['51'] },
  });
  key = await ctx.keyFor({ customerNrs: ['2000'], scopes: ['price'] });
  const rates = await ctx.app.inject({
    method: 'PUT',
    url: '/admin/exchange-rates',
    headers: bearer(ADMIN_KEY),
    payload: { ValidFrom: '2026-11-20', Base: 'EUR', Rates: { NOK: '12.0000', SEK: '11.0000' } },
  });
  expect(rates.statusCode).toBe(200);
});
afterAll(() => ctx.close());

const pricer = () => createBookingPricing(ctx.services.pricing);
const qs = (params: Record<string, string | number | (string | number)[]>) =>
  Object.entries(params)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${encodeURIComponent(String(x))}`))
    .join('&');
const v3 = (params: Record<string, string | number | (string | number)[]>) =>
  ctx.app.inject({
    url: `/v3/Calculate/?${qs({ Customernr: '2000', SenderZip: '0150', ReceiverZip: '5003', ProductCode: '43', ...params })}`,
    headers: bearer(key),
  });

interface V3Result {
  Freight: { FreightCost: number; Details: { Description: string; Cost: number; CostTypeCode: string }[] };
  Services: { ServiceName: string; ServiceCode: string; ServiceCost: number }[];
  Total: number;
}

/** A domestic shipment of customer 2000 from Oslo to Bergen, delivered to a private person. */
const osloBergen = {
  customerNr: '2000',
  payerCustomerNr: '2000',
  productCode: '43',
  fromZip: '0150',
  toZip: '5003',
  fromCountry: 'NO',
  toCountry: 'NO',
  deliveryType: 0,
} as const;

/** 12 kg of customer 2000 from Oslo to Berlin, picked up on `pickupDate`. */
const osloBerlin = (pickupDate: string): ShipmentPriceInput => ({
  customerNr: '2000',
  payerCustomerNr: '2000',
  productCode: 'EP',
  fromZip: '0150',
  toZip: '10115',
  fromCountry: 'NO',
  toCountry: 'DE',
  deliveryType: 1,
  services: [],
  unitCode: 'KL',
  pickupDate,
  parcels: [{ weightG: 12_000, lengthCm: null, heightCm: null, widthCm: null, volumeCm3: null }],
});

describe('booking prices through the same quote', () => {
  test('the frozen price of a shipment equals the calculator’s quote for the same inputs', async () => {
    const frozen = await pricer().priceShipment({
      ...osloBergen,
      services: ['16'],
      unitCode: 'KL',
      pickupDate: '2026-11-24',
      parcels: [
        { weightG: 10_000, lengthCm: null, heightCm: null, widthCm: null, volumeCm3: null },
        { weightG: 10_000, lengthCm: 60, heightCm: 40, widthCm: 40, volumeCm3: null },
      ],
    });
    const quoted = json<V3Result>(
      await v3({
        Weight: 20,
        DeliveryType: 0,
        Services: '16',
        PickupDate: '2026-11-24',
        UnitCode: 'KL',
        NumberOfUnits: 2,
        'Parcels[0].Weight': 10,
        'Parcels[1].Weight': 10,
        'Parcels[1].Length': 60,
        'Parcels[1].Width': 40,
        'Parcels[1].Height': 40,
      }),
    );
    expect(frozen.TotalOre).toBe(Math.round(quoted.Total * 100));
    expect(frozen.FreightOre).toBe(Math.round(quoted.Freight.FreightCost * 100));
    expect(frozen.Lines.map((l) => [l.CostTypeCode, l.AmountOre / 100])).toEqual([
      ...quoted.Freight.Details.map((d) => [d.CostTypeCode, d.Cost]),
      ...quoted.Services.map((s) => [s.ServiceCode, s.ServiceCost]),
    ]);
    expect(frozen).toMatchObject({ TariffVersion: '2026-01-01', ChargeableWeightKg: 42 });
  });

  test('a parcel’s stated volume is charged, and quoted with the parcel’s Volume (extension)', async () => {
    // Two 2 kg parcels of 60 dm³: 60 × 333 kg/m³ = 19.98 → 20 kg each, not 2.
    const parcel = { weightG: 2000, lengthCm: null, heightCm: null, widthCm: null, volumeCm3: 60_000 };
    const frozen = await pricer().priceShipment({
      ...osloBergen,
      services: [],
      unitCode: 'KL',
      pickupDate: '2026-11-24',
      parcels: [parcel, parcel],
    });
    const quoted = json<V3Result>(
      await v3({
        Weight: 4,
        DeliveryType: 0,
        PickupDate: '2026-11-24',
        'Parcels[0].Weight': 2,
        'Parcels[0].Volume': 60,
        'Parcels[1].Weight': 2,
        'Parcels[1].Volume': 60,
      }),
    );
    expect(frozen.TotalOre).toBe(Math.round(quoted.Total * 100));
    const v2 = await ctx.app.inject({
      method: 'POST',
      url: '/v2/PriceCalculator',
      headers: bearer(key),
      payload: {
        customer_nr: '2000',
        sender_zip: '0150',
        receiver_zip: '5003',
        product_type: '43',
        weight: 4,
        delivery_type: 0,
        pickup_date: '2026-11-24',
        parcels: [
          { weight: 2, volume: 60 },
          { weight: 2, volume: 60 },
        ],
      },
    });
    expect(v2.statusCode, v2.body).toBe(200);
    expect(Math.round(json<{ Total: number }>(v2).Total * 100)).toBe(frozen.TotalOre);
    // Without the volume, the parcels weigh 2 kg: a lower price.
    const light = json<V3Result>(
      await v3({
        Weight: 4,
        DeliveryType: 0,
        PickupDate: '2026-11-24',
        'Parcels[0].Weight': 2,
        'Parcels[1].Weight': 2,
      }),
    );
    expect(light.Total).toBeLessThan(quoted.Total);
  });

  test('a pallet shipment is charged by the pallet spaces and loading metres its record shows', async () => {
    const pallet = { weightG: 200_000, lengthCm: 120, heightCm: 100, widthCm: 80, volumeCm3: null };
    const frozen = await pricer().priceShipment({
      ...osloBergen,
      services: [],
      unitCode: 'PL',
      pickupDate: '2026-11-24',
      // The third without measures counts as a 120×80 pallet: 3 spaces, 1.2 loading metres.
      parcels: [pallet, pallet, { ...pallet, lengthCm: null, heightCm: null, widthCm: null }],
    });
    const quoted = json<V3Result>(
      await v3({
        Weight: 600,
        DeliveryType: 0,
        PickupDate: '2026-11-24',
        UnitCode: 'PL',
        NumberOfUnits: 3,
        NumberOfPalletSpaces: 3,
        NumberOfLoadMeters: 1.2,
        ...Object.fromEntries(
          [0, 1, 2].flatMap((i) => [
            [`Parcels[${i}].Weight`, 200],
            ...(i < 2
              ? [
                  [`Parcels[${i}].Length`, 120],
                  [`Parcels[${i}].Width`, 80],
                  [`Parcels[${i}].Height`, 100],
                ]
              : []),
          ]),
        ),
      }),
    );
    // 3 × 750 kg a pallet space, above 1.2 × 1850 kg a loading metre and the real 600 kg.
    expect(frozen).toMatchObject({ ChargeableWeightKg: 2250 });
    expect(frozen.TotalOre).toBe(Math.round(quoted.Total * 100));
  });

  test('a booking the tariff cannot price names the booking’s fields', async () => {
    await expect(
      pricer().priceShipment({
        customerNr: '2000',
        payerCustomerNr: '2000',
        productCode: '43',
        fromZip: '0150',
        toZip: '0000',
        fromCountry: 'NO',
        toCountry: 'NO',
        deliveryType: 1,
        services: ['42'],
        unitCode: 'KL',
        pickupDate: '2026-11-24',
        parcels: [{ weightG: 1000, lengthCm: null, heightCm: null, widthCm: null, volumeCm3: null }],
      }),
    ).rejects.toMatchObject({ errors: { RecipientZip: expect.any(Array) } });
  });

  test('an international booking is priced DDU in NOK', async () => {
    const frozen = await pricer().priceShipment(osloBerlin('2026-11-24'));
    // The DDU quote of GET /v2/europe/price at the 2026-11-20 rate of 12.00 (loaded above): 1231.34.
    expect(frozen.TotalOre).toBe(123_134);
    expect(frozen.Lines.map((l) => l.CostTypeCode)).toEqual([
      'FREIGHT',
      'DISCOUNT',
      'ENERGY',
      'EXPORT_CLEARANCE',
    ]);
  });

  test('the europe quote with the planned pickup date (extension) gives an international booking’s price', async () => {
    // A rate table from 2026-11-26: a booking picked up then is priced at its rate, not today's.
    const later = await ctx.app.inject({
      method: 'PUT',
      url: '/admin/exchange-rates',
      headers: bearer(ADMIN_KEY),
      payload: { ValidFrom: '2026-11-26', Base: 'EUR', Rates: { NOK: '12.5000', SEK: '11.0000' } },
    });
    expect(later.statusCode, later.body).toBe(200);
    const frozen = await pricer().priceShipment(osloBerlin('2026-11-26'));
    const priceServiceId = (await ctx.services.customers.get('2000'))?.priceServiceId ?? '';
    const europe = async (extra: Record<string, string>) => {
      const res = await ctx.app.inject({
        url: `/v2/europe/price?${qs({
          CustomerId: priceServiceId,
          ProductCode: 'EP',
          OriginCountry: 'NO',
          OriginPostalCode: '0150',
          DestinationCountry: 'DE',
          DestinationPostalCode: '10115',
          Weight: '12',
          Currency: 'NOK',
          ShipmentCategory: 'export',
          Terms: 'DDU',
          ...extra,
        })}`,
        headers: bearer(key),
      });
      expect(res.statusCode, res.body).toBe(200);
      return Math.round(Number(json<{ Total: string }>(res).Total) * 100);
    };
    expect(await europe({ PickupDate: '2026-11-26' })).toBe(frozen.TotalOre);
    // Without it, today's (2026-11-23) table: 12.00.
    expect(await europe({})).toBe(123_134);
    expect(frozen.TotalOre).not.toBe(123_134);
    const bad = await ctx.app.inject({
      url: `/v2/europe/price?CustomerId=${priceServiceId}&ProductCode=EP&OriginCountry=NO&OriginPostalCode=0150&DestinationCountry=DE&DestinationPostalCode=10115&Weight=12&Currency=NOK&ShipmentCategory=export&Terms=DDU&PickupDate=2026-02-30`,
      headers: bearer(key),
    });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(json<{ errors: object }>(bad).errors)).toEqual(['PickupDate']);
  });
});

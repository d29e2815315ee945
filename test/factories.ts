/**
 * A complete, publishable booking of customer 1000 from Oslo (0154) to Bergen (5003), one 12.5 kg
 * parcel; `over` replaces or adds fields (`undefined` removes one from the JSON).
 */
export const osloBergenBooking = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  ShipmentStatus: 'Published',
  CustomerId: '1000',
  ProductCode: '43',
  DeliveryType: 1,
  PickupCompanyName: 'Demo Kunde AS',
  PickupAddress: 'Karl Johans gate 1',
  PickupZip: '0154',
  PickupPlace: 'OSLO',
  RecipientCompanyName: 'Fjord Frakt AS',
  RecipientAddress: 'Bryggen 1',
  RecipientZip: '5003',
  RecipientPlace: 'BERGEN',
  Parcels: [{ Weight: 12.5 }],
  ...over,
});

/** The same pickup and recipient as `osloBergenBooking`, as the v2 body's `Addresses` list. */
export const osloBergenAddresses = (): [Record<string, unknown>, Record<string, unknown>] => [
  {
    AddressTypeId: 1,
    CompanyName: 'Demo Kunde AS',
    Address: 'Karl Johans gate 1',
    Zip: '0154',
    Place: 'OSLO',
  },
  { AddressTypeId: 2, CompanyName: 'Fjord Frakt AS', Address: 'Bryggen 1', Zip: '5003', Place: 'BERGEN' },
];

/** `n` measured parcels of 1–20 kg and 40 × 30 × 20 cm, as a large booking's `Parcels`. */
export const measuredParcels = (n: number): Record<string, unknown>[] =>
  Array.from({ length: n }, (_, i) => ({ Weight: 1 + (i % 20), Length: 40, Width: 30, Height: 20 }));

/** What sends `osloBergenBooking` to Gothenburg instead: product EP and one customs line. */
export const toGothenburg = (): Record<string, unknown> => ({
  ProductCode: 'EP',
  RecipientZip: '41101',
  RecipientPlace: 'GÖTEBORG',
  RecipientCountry: 'SE',
  CustomsInformation: {
    Lines: [
      {
        CountryOfOrigin: 'NO',
        GrossWeight: 16.5,
        NetWeight: 15,
        GoodsDescription: 'Knitwear',
        HsCode: '611030',
        GoodsValue: 4500,
        CurrencyType: 'NOK',
        Quantity: 30,
      },
    ],
  },
});

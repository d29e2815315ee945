/** The shapes booking stores inside a shipment (addresses, customs, the frozen price); other domains read them. */

/** One address block of the booking request, with the spec's field names (without the block prefix). */
export interface AddressBlock {
  CompanyName: string | null;
  FirstName: string | null;
  LastName: string | null;
  Address: string | null;
  Address2: string | null;
  Zip: string | null;
  Place: string | null;
  County: string | null;
  Country: string | null;
  Phone: string | null;
  Email: string | null;
}

export interface ShipmentAddresses {
  Pickup: AddressBlock;
  Recipient: AddressBlock;
  Return: AddressBlock | null;
  PickupPoint: AddressBlock | null;
}

/** The address types of the wire (CONTRACT §5): `AddressTypeId`, its block, and its name in messages. */
export const ADDRESS_TYPES = [
  { id: 1, block: 'Pickup', role: 'pickup' },
  { id: 2, block: 'Recipient', role: 'recipient' },
  { id: 3, block: 'Return', role: 'return' },
  { id: 4, block: 'PickupPoint', role: 'pickup point' },
] as const satisfies readonly { id: number; block: keyof ShipmentAddresses; role: string }[];

export interface CustomsLine {
  CountryOfOrigin: string | null;
  GrossWeight: number | null;
  NetWeight: number | null;
  GoodsDescription: string | null;
  HsCode: string | null;
  GoodsValue: number | null;
  CurrencyType: string | null;
  Quantity: number | null;
}

/** A priced cost line, frozen with the shipment when it is published (amounts in øre). */
export interface FrozenCostLine {
  CostTypeCode: string;
  Description: string;
  AmountOre: number;
}

export interface FrozenPrice {
  TariffVersion: string;
  Lines: FrozenCostLine[];
  FreightOre: number;
  ServicesOre: number;
  TotalOre: number;
  ChargeableWeightKg: number;
  /** Anything else the pricing engine reports (zone, terminals). */
  Details?: Record<string, unknown>;
}

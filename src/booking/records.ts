import type { CatalogRules } from '../catalog/service';
import type { LabelShipment } from '../labels/model';
import { cm3ToDm3OrNull, gramsToKgOrNull } from '../lib/units';
import { destination } from './addresses';
import { ADDRESS_TYPES, type AddressBlock } from './model';
import { palletLoad } from './parcels';
import type { ShipmentRecordT } from './schemas';
import type { ParcelValues, ShipmentRow } from './store/shipments';

/** The read models of a stored shipment: the spec's parcel records, and what its labels print. */

const dateTime = (date: string | null, time: string | null) =>
  date && time ? `${date}T${time}:00` : date ? `${date}T00:00:00` : null;

export function recordsOf(row: ShipmentRow, parcels: ParcelValues[]): ShipmentRecordT[] {
  const a = row.addresses;
  const addressList = ADDRESS_TYPES.map((t) => [t.id, a[t.block]] as const).flatMap(([type, b]) =>
    b
      ? [
          {
            AddressTypeId: type,
            FirstName: b.FirstName,
            LastName: b.LastName,
            CompanyName: b.CompanyName,
            Address: b.Address,
            Address2: b.Address2,
            Zip: b.Zip,
            Place: b.Place,
            County: b.County,
            Country: b.Country,
          },
        ]
      : [],
  );
  const references = row.senderReference
    ? [{ ReferenceTypeId: 1, ReferenceLevel: 1, ReferenceText: row.senderReference }]
    : [];
  const load = palletLoad(row.unitCode, parcels);
  const shared = {
    ParcelStatus: row.status,
    CustomerId: row.customerNr,
    IsReturn: row.isReturn,
    Addresses: addressList,
    PickupPhone: a.Pickup.Phone,
    PickupEmail: a.Pickup.Email,
    RecipientPhone: a.Recipient.Phone,
    RecipientEmail: a.Recipient.Email,
    ReturnPhone: a.Return?.Phone ?? null,
    ReturnEmail: a.Return?.Email ?? null,
    PickupPointId: row.pickupPointId,
    DeliveryDate: dateTime(row.deliveryDate, row.deliveryWindowFrom),
    DeliveryDateTo: dateTime(row.deliveryDate, row.deliveryWindowTo),
    PickupDate: dateTime(row.pickupDate, row.pickupWindowFrom),
    PickupDateTo: dateTime(row.pickupDate, row.pickupWindowTo),
    ProductCode: row.productCode,
    Services: row.services,
    DeliveryType: row.deliveryType,
    CommentToCarrier: row.commentToCarrier,
    GoodsDescription: row.goodsDescription,
    ShipmentId: row.id,
    UnitCode: row.unitCode,
    RecipientShallPay: row.recipientShallPay,
    RecipientCustomerId: row.recipientCustomerId === null ? null : Number(row.recipientCustomerId),
    References: references,
    LoadingMeters: load.loadingMeters,
    PalletSpaces: load.palletSpaces,
  };
  return parcels.map((p) => ({
    ...shared,
    ParcelId: p.parcelId,
    Weight: gramsToKgOrNull(p.weightG),
    Length: p.lengthCm,
    Height: p.heightCm,
    Width: p.widthCm,
    Volume: cm3ToDm3OrNull(p.volumeCm3),
  }));
}

/** The zip whose terminal a label names: the `destination`'s, in Norway only. */
export function labelDestinationZip(row: ShipmentRow): string | null {
  const to = destination(row.addresses);
  return (to.Country ?? 'NO') === 'NO' ? to.Zip : null;
}

/** A published shipment as its labels print it. */
export function labelShipmentOf(
  row: ShipmentRow,
  parcels: ParcelValues[],
  rules: CatalogRules,
  destinationTerminal: string | null,
): LabelShipment {
  const a = row.addresses;
  const block = <P extends string>(prefix: P, b: AddressBlock | null) =>
    Object.fromEntries(
      (
        [
          'CompanyName',
          'FirstName',
          'LastName',
          'Address',
          'Address2',
          'Zip',
          'Place',
          'Country',
          'Phone',
        ] as const
      ).map((f) => [`${prefix}${f}`, b?.[f] ?? null]),
    );
  return {
    ShipmentId: row.id,
    ProductCode: row.productCode,
    ProductName: rules.product(row.productCode)?.Name ?? row.productCode,
    Services: row.services.map((code) => ({
      ServiceCode: code,
      Name: rules.service(code)?.Name ?? code,
    })),
    Parcels: parcels.map((p) => ({
      ParcelId: p.parcelId,
      WeightKg: gramsToKgOrNull(p.weightG),
    })),
    ...block('Pickup', a.Pickup),
    ...block('Recipient', a.Recipient),
    ...block('PickupPoint', a.PickupPoint),
    PickupPointId: row.pickupPointId,
    DestinationTerminal: destinationTerminal,
    SenderReference: row.senderReference,
    IsReturn: row.isReturn,
    DeliveryDate: row.deliveryDate,
    PickupDate: row.pickupDate,
  };
}

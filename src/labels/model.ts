import { kgTo2Decimals } from '../lib/units';

/**
 * What a parcel label prints, and how a booked shipment becomes one label per parcel.
 *
 * The label domain owns no data: booking hands it a `LabelShipment` (the shipment as booked, in the
 * spec's request field names) and `toLabelModels` turns it into one `LabelModel` per parcel, in parcel
 * order. The renderers (`pdf.ts`, `zpl.ts`) only lay out a `LabelModel`.
 */

/** The carrier's name as printed in the label head. */
export const CARRIER_NAME = 'Kolli';

/** Service code of Fix Day (CONTRACT §11): the label prints the agreed delivery date with it. */
export const FIX_DAY_SERVICE = '35';

/** A shipment as booking knows it, in the spec's booking-request field names. */
export interface LabelShipment {
  /** The GSIN (17 digits), or the 18-digit SSCC a client chose as its id. */
  ShipmentId: string;
  ProductCode: string;
  ProductName: string;
  /** The shipment's services, with their catalogue names, in booking order. */
  Services: ReadonlyArray<{ ServiceCode: string; Name: string }>;
  /** Parcels in parcel order: one label each. `ParcelId` is an SSCC unless the customer gave its own. */
  Parcels: ReadonlyArray<{ ParcelId: string; WeightKg: number | null }>;

  PickupCompanyName?: string | null;
  PickupFirstName?: string | null;
  PickupLastName?: string | null;
  PickupAddress?: string | null;
  PickupAddress2?: string | null;
  PickupZip?: string | null;
  PickupPlace?: string | null;
  /** ISO 3166-1 alpha-2; `NO` when absent. */
  PickupCountry?: string | null;

  RecipientCompanyName?: string | null;
  RecipientFirstName?: string | null;
  RecipientLastName?: string | null;
  RecipientAddress?: string | null;
  RecipientAddress2?: string | null;
  RecipientZip?: string | null;
  RecipientPlace?: string | null;
  RecipientCountry?: string | null;
  RecipientPhone?: string | null;

  /** When set (with the PickupPoint address fields) the parcel goes to this pickup point. */
  PickupPointId?: number | string | null;
  PickupPointCompanyName?: string | null;
  PickupPointAddress?: string | null;
  PickupPointAddress2?: string | null;
  PickupPointZip?: string | null;
  PickupPointPlace?: string | null;
  /** Pickup points are in Norway (booking stores `NO`); `NO` when absent, whatever the recipient's. */
  PickupPointCountry?: string | null;

  /**
   * Code of the terminal that serves the delivery postal code (the pickup point's when one is used),
   * e.g. `OSL`; `null` when unknown (international), then the label routes by postal code alone.
   */
  DestinationTerminal: string | null;
  SenderReference?: string | null;
  IsReturn: boolean;
  /** Date or datetime (`2026-11-25` or `2026-11-25T00:00:00`); printed as a date. */
  DeliveryDate?: string | null;
  PickupDate?: string | null;
}

/** One address block as printed. */
export interface LabelAddress {
  /** Company name, or the person's name when there is no company. */
  Name: string;
  /** The person's name under a company name ("Att."), `null` when none or already the `Name`. */
  Attention: string | null;
  Address: string;
  Address2: string | null;
  Zip: string;
  Place: string;
  /** ISO 3166-1 alpha-2. */
  Country: string;
}

/** Everything one 10×15 cm label prints. */
export interface LabelModel {
  Carrier: string;
  ProductCode: string;
  ProductName: string;
  /** The pickup (sender) side; on a return shipment the customer sending the parcel back. */
  Sender: LabelAddress;
  Recipient: LabelAddress;
  /** Replaces the delivery address block when present; the recipient's name stays on the label. */
  PickupPoint: (LabelAddress & { Id: string | null }) | null;
  /** Sorting information in large type: where the parcel goes. */
  Routing: { Terminal: string | null; PostalCode: string; Country: string };
  ParcelId: string;
  /** The 18-digit SSCC when `ParcelId` is one; the barcode is then GS1-128 `(00)` + SSCC. */
  Sscc: string | null;
  /** The GSIN (17 digits), or the 18-digit SSCC a client chose as its id. */
  ShipmentId: string;
  WeightKg: number | null;
  /** 1-based position of the parcel in the shipment, and the shipment's parcel count ("n / m"). */
  ParcelNumber: number;
  ParcelCount: number;
  /** The sender's reference in full (the invoice shows only 15 characters; the label all of it). */
  SenderReference: string | null;
  /** Services printed for the driver, e.g. `Pre-notice SMS`, `Fix Day 2026-11-25`. */
  Services: string[];
  /** A return shipment: the label carries a prominent RETUR marking. */
  IsReturn: boolean;
  PickupDate: string | null;
  DeliveryDate: string | null;
}

/** GS1 mod-10 check digit of the digits before it (GSIN, SSCC, GTIN). */
export function gs1CheckDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    const d = digits.charCodeAt(digits.length - 1 - i) - 48;
    sum += i % 2 === 0 ? d * 3 : d;
  }
  return (10 - (sum % 10)) % 10;
}

/** True for 18 digits whose last is the GS1 check digit. */
export function isSscc(value: string): boolean {
  return /^[0-9]{18}$/.test(value) && gs1CheckDigit(value.slice(0, 17)) === Number(value[17]);
}

/** The SSCC as people read it under the barcode: `(00) 3 7012345 000000001 4`. */
export function formatSscc(sscc: string): string {
  return `(00) ${sscc[0]} ${sscc.slice(1, 8)} ${sscc.slice(8, 17)} ${sscc[17]}`;
}

/**
 * A field as printed: control characters and line separators become spaces (booking keeps fields as
 * given, and a line break inside a one-line box would overprint the lines below it), then trimmed.
 */
const text = (value: string | null | undefined): string | null => {
  const trimmed = value?.replace(/[\p{Cc}\u2028\u2029]/gu, ' ').trim();
  return trimmed ? trimmed : null;
};

const dateOnly = (value: string | null | undefined): string | null => text(value)?.slice(0, 10) ?? null;

function address(
  company: string | null | undefined,
  first: string | null | undefined,
  last: string | null | undefined,
  line1: string | null | undefined,
  line2: string | null | undefined,
  zip: string | null | undefined,
  place: string | null | undefined,
  country: string | null | undefined,
): LabelAddress {
  const person = [text(first), text(last)].filter((p) => p !== null).join(' ') || null;
  const name = text(company) ?? person ?? '';
  return {
    Name: name,
    Attention: person !== null && person !== name ? person : null,
    Address: text(line1) ?? '',
    Address2: text(line2),
    Zip: text(zip) ?? '',
    Place: text(place) ?? '',
    Country: (text(country) ?? 'NO').toUpperCase(),
  };
}

/** The service lines the driver needs; Fix Day carries its date. */
function serviceLines(shipment: LabelShipment): string[] {
  const delivery = dateOnly(shipment.DeliveryDate);
  return shipment.Services.map((s) =>
    s.ServiceCode === FIX_DAY_SERVICE && delivery ? `${s.Name} ${delivery}` : s.Name,
  );
}

/** One label per parcel, in parcel order. */
export function toLabelModels(shipment: LabelShipment): LabelModel[] {
  const s = shipment;
  const sender = address(
    s.PickupCompanyName,
    s.PickupFirstName,
    s.PickupLastName,
    s.PickupAddress,
    s.PickupAddress2,
    s.PickupZip,
    s.PickupPlace,
    s.PickupCountry,
  );
  const recipient = address(
    s.RecipientCompanyName,
    s.RecipientFirstName,
    s.RecipientLastName,
    s.RecipientAddress,
    s.RecipientAddress2,
    s.RecipientZip,
    s.RecipientPlace,
    s.RecipientCountry,
  );
  const hasPickupPoint =
    (s.PickupPointId !== null && s.PickupPointId !== undefined && s.PickupPointId !== '') ||
    text(s.PickupPointZip) !== null;
  const pickupPoint = hasPickupPoint
    ? {
        ...address(
          s.PickupPointCompanyName,
          null,
          null,
          s.PickupPointAddress,
          s.PickupPointAddress2,
          s.PickupPointZip,
          s.PickupPointPlace,
          s.PickupPointCountry,
        ),
        Id: s.PickupPointId === null || s.PickupPointId === undefined ? null : String(s.PickupPointId),
      }
    : null;
  const destination = pickupPoint ?? recipient;
  const services = serviceLines(s);
  const count = s.Parcels.length;
  return s.Parcels.map((parcel, i) => ({
    Carrier: CARRIER_NAME,
    ProductCode: s.ProductCode,
    ProductName: s.ProductName,
    Sender: sender,
    Recipient: recipient,
    PickupPoint: pickupPoint,
    Routing: {
      Terminal: text(s.DestinationTerminal)?.toUpperCase() ?? null,
      PostalCode: destination.Zip,
      Country: destination.Country,
    },
    ParcelId: parcel.ParcelId,
    Sscc: isSscc(parcel.ParcelId) ? parcel.ParcelId : null,
    ShipmentId: s.ShipmentId,
    WeightKg: parcel.WeightKg,
    ParcelNumber: i + 1,
    ParcelCount: count,
    SenderReference: text(s.SenderReference),
    Services: services,
    IsReturn: s.IsReturn,
    PickupDate: dateOnly(s.PickupDate),
    DeliveryDate: dateOnly(s.DeliveryDate),
  }));
}

/** Weight as printed: Norwegian decimal comma, at most 2 decimals (`12,5 kg`). */
export function formatWeight(kg: number | null): string {
  if (kg === null || !Number.isFinite(kg)) return '–';
  const rounded = kgTo2Decimals(kg);
  return `${String(rounded).replace('.', ',')} kg`;
}

/** The address lines under the name, as printed (zip line with country prefix abroad). */
export function zipLine(a: { Zip: string; Place: string; Country: string }): string {
  const zip = a.Country === 'NO' ? a.Zip : `${a.Country}-${a.Zip}`;
  return `${zip} ${a.Place.toUpperCase()}`.trim();
}

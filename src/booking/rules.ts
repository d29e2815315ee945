import type { CatalogRules, Product } from '../catalog/service';
import type { Violations } from '../lib/errors';
import { isGsin, isSscc } from '../lib/gs1';
import { notAnAddress } from '../reference-data/postal-codes';
import { addDays, dateOfDateTime, isWorkingDay } from '../schedule/calendar';
import { DESIRED_DATE_SLACK_DAYS } from '../schedule/service';
import type { AddressBlock, CustomsLine, ShipmentAddresses } from './model';
import type { ShipmentUpdate } from './schemas';

/** ParcelStatusEnum (CONTRACT §2). */
export const STATUS = { Draft: 0, ReadyForPublish: 1, Published: 2 } as const;
export type ShipmentStatus = (typeof STATUS)[keyof typeof STATUS];
/** The status names of the wire, by stored number (0 Draft, 1 ReadyForPublish, 2 Published). */
export const STATUS_NAMES = [
  'Draft',
  'ReadyForPublish',
  'Published',
] as const satisfies readonly (keyof typeof STATUS)[];

const DELIVERY_TYPES = { private: 0, company: 1 } as const;

/** `Draft`/`draft`/`0`/"0" → 0; anything else is a violation on `ShipmentStatus`. */
export function parseStatus(value: number | string, v: Violations): ShipmentStatus | null {
  const text = String(value).trim();
  if (/^[0-2]$/.test(text)) return Number(text) as ShipmentStatus;
  const name = STATUS_NAMES.find((n) => n.toLowerCase() === text.toLowerCase());
  if (name) return STATUS[name];
  v.add(
    'ShipmentStatus',
    'The ShipmentStatus field must be Draft (0), ReadyForPublish (1) or Published (2).',
  );
  return null;
}

/** `0`/`1`/`Private`/`Company` → 0/1. */
export function parseDeliveryType(value: number | string, v: Violations): 0 | 1 | null {
  const text = String(value).trim().toLowerCase();
  if (text === '0' || text === '1') return Number(text) as 0 | 1;
  if (text === 'private' || text === 'company') return DELIVERY_TYPES[text];
  v.add('DeliveryType', 'The DeliveryType field must be 0 (Private) or 1 (Company).');
  return null;
}

/** The Oslo calendar date of a request datetime (`2026-11-23` or `2026-11-23T10:00:00`), or null if not a real date. */
export function dateOf(value: string | undefined, field: string, v: Violations): string | null {
  if (value === undefined) return null;
  const date = dateOfDateTime(value);
  return v.check(field, date !== null, `The ${field} field is not a valid date.`) ? date : null;
}

const blank = (s: string | undefined | null): string | null => {
  if (s === undefined || s === null) return null;
  const t = s.trim();
  return t === '' ? null : t;
};

/** The request's address block with the given prefix (`Recipient` → RecipientZip...), trimmed. */
export function addressOf(
  body: ShipmentUpdate,
  prefix: 'Pickup' | 'Recipient' | 'Return' | 'PickupPoint',
): AddressBlock {
  const get = (name: string) =>
    blank((body as Record<string, unknown>)[`${prefix}${name}`] as string | undefined);
  const country = get('Country');
  return {
    CompanyName: get('CompanyName'),
    FirstName: get('FirstName'),
    LastName: get('LastName'),
    Address: get('Address'),
    Address2: get('Address2'),
    Zip: get('Zip'),
    Place: get('Place'),
    County: get('County'),
    // The pickup point block has no country field: pickup points are in Norway.
    Country: prefix === 'PickupPoint' ? 'NO' : (country?.toUpperCase() ?? 'NO'),
    Phone: get('Phone'),
    Email: get('Email'),
  };
}

const isEmpty = (a: AddressBlock) =>
  [
    a.CompanyName,
    a.FirstName,
    a.LastName,
    a.Address,
    a.Address2,
    a.Zip,
    a.Place,
    a.County,
    a.Phone,
    a.Email,
  ].every((x) => x === null);

export function addressesOf(body: ShipmentUpdate): ShipmentAddresses {
  const ret = addressOf(body, 'Return');
  const point = addressOf(body, 'PickupPoint');
  return {
    Pickup: addressOf(body, 'Pickup'),
    Recipient: addressOf(body, 'Recipient'),
    Return: isEmpty(ret) ? null : ret,
    PickupPoint: isEmpty(point) ? null : point,
  };
}

/** What the postal-code categories are judged against: a shipment being made final, and its way. */
export interface ZipUse {
  /** ReadyForPublish or Published: the addresses are committed to (a Draft may still change them). */
  final: boolean;
  /** The parcels go to a pickup point (named, or the product's only way), not the recipient's door. */
  toAPoint: boolean;
  /** A return shipment is generated: its parcels go to the return address's door. */
  withReturn: boolean;
}

/**
 * Norwegian zips are 4 digits and must be in the postal register (`categories`: each known code's
 * category); foreign ones are free text. Once a shipment is made final, a service code (`S`,
 * business reply) is no address at all, and a PO-box code (`P`) none a driver can go to: not for a
 * pickup, nor for a door the parcels or their return are delivered to.
 */
export function checkZips(
  addresses: ShipmentAddresses,
  categories: ReadonlyMap<string, string>,
  use: ZipUse,
  v: Violations,
): void {
  for (const [prefix, block] of Object.entries(addresses) as [string, AddressBlock | null][]) {
    if (!block?.Zip) continue;
    const field = `${prefix}Zip`;
    if (block.Country !== 'NO') continue;
    if (
      !v.check(
        field,
        /^\d{4}$/.test(block.Zip),
        `The ${field} field must be a Norwegian postal code of 4 digits.`,
      )
    )
      continue;
    const category = categories.get(block.Zip);
    if (!v.check(field, category !== undefined, `Postal code ${block.Zip} is not in the postal register.`))
      continue;
    if (!use.final) continue;
    const notAddress = notAnAddress(block.Zip, category);
    if (notAddress) v.add(field, notAddress);
    const atTheDoor =
      prefix === 'Pickup' ||
      (prefix === 'Recipient' && !use.toAPoint) ||
      (prefix === 'Return' && use.withReturn);
    v.check(
      field,
      category !== 'P' || !atTheDoor,
      `Postal code ${block.Zip} is for PO boxes only: the ${prefix === 'Pickup' ? 'pickup' : 'delivery'} needs a street address's postal code.`,
    );
  }
}

/**
 * ReadyForPublish and Published need complete pickup and recipient addresses: a name (company or
 * first and last name), an address line, a postal code and a place.
 */
export function checkCompleteAddresses(addresses: ShipmentAddresses, v: Violations): void {
  for (const prefix of ['Pickup', 'Recipient'] as const) {
    const a = addresses[prefix];
    const why = 'is required when the shipment is ReadyForPublish or Published.';
    if (!a.CompanyName && !(a.FirstName && a.LastName)) {
      v.add(
        `${prefix}CompanyName`,
        `The ${prefix}CompanyName field (or ${prefix}FirstName and ${prefix}LastName) ${why}`,
      );
    }
    if (!a.Address) v.add(`${prefix}Address`, `The ${prefix}Address field ${why}`);
    if (!a.Zip) v.add(`${prefix}Zip`, `The ${prefix}Zip field ${why}`);
    if (!a.Place) v.add(`${prefix}Place`, `The ${prefix}Place field ${why}`);
  }
}

/** UnitCode: `KL`, `PL` (where the product takes them) or a special code `51`..`99` of the customer's agreement. */
export function checkUnitCode(
  unitCode: string,
  product: Product | null,
  specialCodes: readonly string[],
  v: Violations,
): void {
  if (unitCode === 'KL' || unitCode === 'PL') {
    if (product) {
      v.check(
        'UnitCode',
        (product.UnitCodes as readonly string[]).includes(unitCode),
        `Unit code ${unitCode} is not available with product ${product.ProductCode}.`,
      );
    }
    return;
  }
  if (
    !v.check(
      'UnitCode',
      /^(5[1-9]|[6-9]\d)$/.test(unitCode),
      'The UnitCode field must be KL, PL or a special code 51 to 99.',
    )
  )
    return;
  v.check(
    'UnitCode',
    specialCodes.includes(unitCode),
    `Special unit code ${unitCode} is not in the customer's agreement.`,
  );
}

/** Customs lines are needed when the pickup or the recipient is outside Norway. */
export function checkCustoms(addresses: ShipmentAddresses, lines: CustomsLine[] | null, v: Violations): void {
  const abroad = addresses.Pickup.Country !== 'NO' || addresses.Recipient.Country !== 'NO';
  if (abroad && (!lines || lines.length === 0)) {
    v.add(
      'CustomsInformation',
      'The CustomsInformation field with at least one line is required when the shipment goes outside Norway.',
    );
  }
  lines?.forEach((line, i) => {
    const at = `CustomsInformation.Lines[${i}]`;
    for (const f of [
      'GoodsDescription',
      'HsCode',
      'GoodsValue',
      'CurrencyType',
      'Quantity',
      'CountryOfOrigin',
      'GrossWeight',
    ] as const) {
      v.check(`${at}.${f}`, line[f] !== null, `The ${f} field is required on a customs line.`);
    }
    if (line.NetWeight !== null && line.GrossWeight !== null) {
      v.check(
        `${at}.NetWeight`,
        line.NetWeight <= line.GrossWeight,
        'The NetWeight must not exceed the GrossWeight.',
      );
    }
  });
}

export function customsOf(body: ShipmentUpdate): CustomsLine[] | null {
  const lines = body.CustomsInformation?.Lines;
  if (!lines) return null;
  return lines.map((l) => ({
    CountryOfOrigin: l.CountryOfOrigin?.toUpperCase() ?? null,
    GrossWeight: l.GrossWeight ?? null,
    NetWeight: l.NetWeight ?? null,
    GoodsDescription: blank(l.GoodsDescription),
    HsCode: l.HsCode ?? null,
    GoodsValue: l.GoodsValue ?? null,
    CurrencyType: l.CurrencyType?.toUpperCase() ?? null,
    Quantity: l.Quantity ?? null,
  }));
}

/**
 * A customer-given ShipmentId must be a GSIN (17 digits) or an SSCC (18 digits, as the original's v2
 * booking page recommends), either with a valid GS1 check digit, under any company prefix (CONTRACT §5).
 */
export function checkShipmentId(id: string | undefined, v: Violations): void {
  if (id === undefined) return;
  v.check(
    'ShipmentId',
    isGsin(id) || isSscc(id),
    'The ShipmentId field must be a GSIN (17 digits) or an SSCC (18 digits) ending in a valid GS1 check digit.',
  );
}

/**
 * A desired date must be a working day no more than 3 calendar days after the earliest date the
 * schedule gives (and not before it).
 */
export function checkDesiredDate(
  field: 'DeliveryDate' | 'PickupDate',
  date: string,
  earliest: string,
  v: Violations,
): void {
  if (!v.check(field, isWorkingDay(date), `${date} is not a working day.`)) return;
  v.check(
    field,
    date >= earliest && date <= addDays(earliest, DESIRED_DATE_SLACK_DAYS),
    `The ${field} must be between ${earliest} and ${addDays(earliest, DESIRED_DATE_SLACK_DAYS)} (at most ${DESIRED_DATE_SLACK_DAYS} days after the earliest date of the schedule).`,
  );
}

/** Product-level rules that need only the catalogue. */
export function checkProductRules(
  body: ShipmentUpdate,
  product: Product,
  rules: CatalogRules,
  services: readonly string[],
  v: Violations,
): void {
  rules.checkServices(product, services, v, 'Services');
  if (body.ShouldGenerateReturnShipment) {
    v.check(
      'ShouldGenerateReturnShipment',
      product.AllowsReturnShipment,
      `An automatic return shipment is only available for the products HE and HJ, not ${product.ProductCode}.`,
    );
  }
  if (body.PickupDate !== undefined) {
    v.check(
      'PickupDate',
      product.AllowsPickupDate,
      `A PickupDate applies only to the product Direct (DI), not ${product.ProductCode}.`,
    );
  }
  const countries = { PickupCountry: body.PickupCountry, RecipientCountry: body.RecipientCountry };
  for (const [field, country] of Object.entries(countries)) {
    if (!product.International && country !== undefined && country.toUpperCase() !== 'NO') {
      v.add(
        field,
        `Product ${product.ProductCode} is domestic; use an international product for ${country.toUpperCase()}.`,
      );
    }
  }
  if (body.PickupPointId !== undefined) {
    v.check(
      'PickupPointId',
      product.PickupPoints || services.includes('18'),
      `Product ${product.ProductCode} does not deliver to pickup points.`,
    );
  }
}

/** Who pays a shipment: S the sender, M the recipient, F a third party (invoice payer roles). */
export type PayerRole = 'S' | 'M' | 'F';

/**
 * The payer of a shipment: the third party when one is named, else the recipient when it shall pay
 * and has a customer number, else the sender. Booking prices on the payer's agreement; invoicing
 * bills the payer.
 */
export function payerOf(s: {
  customerNr: string;
  recipientShallPay: boolean;
  recipientCustomerId: string | null;
  payerCustomerId: string | null;
}): { role: PayerRole; customerNr: string } {
  if (s.payerCustomerId !== null) return { role: 'F', customerNr: s.payerCustomerId };
  if (s.recipientShallPay && s.recipientCustomerId !== null)
    return { role: 'M', customerNr: s.recipientCustomerId };
  return { role: 'S', customerNr: s.customerNr };
}

/** A customer number of the wire (an integer, when given) as the text every table keeps. */
export const customerNrOf = (n: number | undefined | null): string | null =>
  n === undefined || n === null ? null : String(n);

/** First pickup scans this close together are one pickup visit: a driver scanning parcel after parcel. */
export const ONE_PICKUP_SECONDS = 30 * 60;

/**
 * The one split rule (CONTRACT §8 `IsSplitted`, the invoice reports' `Split`): the parcels were
 * picked up at different times — their first pickup scans lie more than `ONE_PICKUP_SECONDS` apart
 * (two visits, on one day or on two), or some parcels were picked up and others not yet.
 */
export function isSplit(p: { pickupSpanSeconds: number; pickedParcels: number; count: number }): boolean {
  return p.pickupSpanSeconds > ONE_PICKUP_SECONDS || (p.pickedParcels > 0 && p.pickedParcels < p.count);
}

/** The return shipment's addresses: from the recipient back to the return address (or the sender). */
export const returnAddresses = (a: ShipmentAddresses): ShipmentAddresses => ({
  Pickup: a.Recipient,
  Recipient: a.Return ?? a.Pickup,
  Return: null,
  PickupPoint: null,
});

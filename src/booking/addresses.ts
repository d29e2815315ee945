import type { AddressBlock, ShipmentAddresses } from './model';

/** An address block with nothing given. */
export const EMPTY_ADDRESS: Readonly<AddressBlock> = Object.freeze({
  CompanyName: null,
  FirstName: null,
  LastName: null,
  Address: null,
  Address2: null,
  Zip: null,
  Place: null,
  County: null,
  Country: null,
  Phone: null,
  Email: null,
});

/** The name an address block goes by: the company, or else the person's first and last name. */
export const displayName = (a: Partial<Pick<AddressBlock, 'CompanyName' | 'FirstName' | 'LastName'>>) =>
  a.CompanyName || [a.FirstName, a.LastName].filter(Boolean).join(' ') || null;

/** One line of an address block: address lines, zip and place. */
export const addressLine = (a: Partial<Pick<AddressBlock, 'Address' | 'Address2' | 'Zip' | 'Place'>>) =>
  [a.Address, a.Address2, [a.Zip, a.Place].filter(Boolean).join(' ')].filter(Boolean).join(', ') || null;

/**
 * Where the parcels go, and so what their route, delivery plan, price and label follow: the pickup
 * point when its block names a postal code, else the recipient (a point named by its company alone
 * leaves the parcels with the recipient).
 */
export const destination = (a: ShipmentAddresses): AddressBlock =>
  a.PickupPoint?.Zip ? a.PickupPoint : a.Recipient;

/** The zip of the `destination`: the one that counts. */
export const destinationZip = (a: ShipmentAddresses): string | null => destination(a).Zip;

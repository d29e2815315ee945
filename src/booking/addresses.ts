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
 * Where the parcels go, and so what their route, delivery plan and price follow: the pickup point
 * when one is named (as the label routes it), else the recipient. Its zip is the one that counts.
 */
export const destinationZip = (a: ShipmentAddresses): string | null => a.PickupPoint?.Zip || a.Recipient.Zip;

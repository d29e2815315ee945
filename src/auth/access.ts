import { forbidden } from '../lib/errors';

/** Scopes a key can hold. `admin` may do everything for every customer. */
export const SCOPES = [
  'booking',
  'price',
  'invoice',
  'shipments',
  'webhooks',
  'labels',
  'ops',
  'admin',
] as const;
export type Scope = (typeof SCOPES)[number];

/** The scopes a business customer's integration needs; the sandbox key gets these. */
export const CUSTOMER_SCOPES: readonly Scope[] = [
  'booking',
  'price',
  'invoice',
  'shipments',
  'webhooks',
  'labels',
];

/** Who is calling: resolved from an API key or an access token on every authenticated request. */
export interface Account {
  readonly keyId: string;
  readonly name: string;
  readonly scopes: ReadonlySet<Scope>;
  /** Customer numbers the caller may act for (ignored for admins, who act for all). */
  readonly customerNrs: ReadonlySet<string>;
}

export const isAdmin = (account: Account) => account.scopes.has('admin');

export const hasScope = (account: Account, scope: Scope) => isAdmin(account) || account.scopes.has(scope);

/**
 * True when the caller may record scans of the customer's parcels: a carrier's scanner key names no
 * customer numbers and scans every customer's parcels; a key that names some scans only theirs.
 */
export const mayScanFor = (account: Account, customerNr: string) =>
  isAdmin(account) || account.customerNrs.size === 0 || account.customerNrs.has(customerNr);

/** True when the caller may act for the customer number. */
export const canActFor = (account: Account, customerNr: string | number) =>
  isAdmin(account) || account.customerNrs.has(String(customerNr));

/**
 * The one access check every domain calls for every customer number a request names:
 * a caller naming a customer it may not act for gets 403.
 */
export function assertCanActFor(account: Account, customerNr: string | number): void {
  if (!canActFor(account, customerNr)) {
    throw forbidden(`This key may not act for customer number ${customerNr}.`);
  }
}

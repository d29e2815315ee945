import { randomBytes } from 'node:crypto';
import countries from 'i18n-iso-countries';
import type { Db, DbOrTx, Tx } from '../db/client';
import { DomainError, notFound, Violations } from '../lib/errors';
import { INT32_MAX, isInt32Text } from '../lib/int32';
import { isOrgNr } from '../lib/mod11';
import { readThroughCache } from '../lib/read-through-cache';
import { type CustomerRow, createCustomerStore } from './store';
import type { Agreement, PostalAddress } from './tables';

export type { CustomerRow } from './store';

export interface CustomerView {
  CustomerNr: string;
  Name: string;
  OrgNr: string | null;
  Address: PostalAddress | null;
  Agreement: Agreement;
  PriceServiceId: string;
  CreatedAt: string;
}

const view = (row: CustomerRow): CustomerView => ({
  CustomerNr: row.customerNr,
  Name: row.name,
  OrgNr: row.orgNr,
  Address: row.address,
  Agreement: row.agreement,
  PriceServiceId: row.priceServiceId,
  CreatedAt: row.createdAt.toISOString(),
});

/** Price-service ids are opaque and unguessable, unlike customer numbers. */
const newPriceServiceId = () => `PS${randomBytes(8).toString('hex').toUpperCase()}`;

export type CustomerService = ReturnType<typeof createCustomerService>;

/**
 * How long `known` trusts a found customer, and a customer number that was not found. A change made
 * through another process (its agreement's unit codes) is seen within 10 s, as pricing sees it; a
 * miss is re-asked soon, so a customer created through another process is bookable within a second.
 */
const FOUND_TTL_MS = 10_000;
const MISS_TTL_MS = 1_000;

/** What an admin gives of a customer, at creation and when correcting it. */
export interface CustomerInput {
  Name: string;
  OrgNr?: string;
  Address?: PostalAddress;
  Agreement?: Agreement;
}

/**
 * The rules of what an invoice prints and pricing reads: a name that is not blank, an organisation
 * number with its MOD11 check digit, an ISO 3166 country, a discount in whole basis points (more
 * decimals would be rounded through binary fractions: 12.345 % priced as 12.35 %, 1.005 % as 1 %),
 * each special unit code once.
 */
function checkCustomer(input: CustomerInput, v: Violations): void {
  v.check('Name', input.Name.trim() !== '', 'The Name field must not be blank.');
  if (input.OrgNr !== undefined) {
    v.check(
      'OrgNr',
      isOrgNr(input.OrgNr),
      'An organisation number is 9 digits, the last a MOD11 check digit.',
    );
  }
  const country = input.Address?.Country;
  if (country !== undefined) {
    v.check('Address.Country', countries.isValid(country), `${country} is not an ISO 3166-1 country code.`);
  }
  const discount = input.Agreement?.FreightDiscountPercent;
  v.check(
    'Agreement.FreightDiscountPercent',
    discount === undefined || /^\d{1,3}(\.\d{1,2})?$/.test(String(discount)),
    'A freight discount is a percentage with at most 2 decimals (12.35).',
  );
  const codes = input.Agreement?.SpecialUnitCodes ?? [];
  v.check(
    'Agreement.SpecialUnitCodes',
    new Set(codes).size === codes.length,
    'Each special unit code is given once.',
  );
}

/**
 * A rule of another domain on an agreement: adds its violations to `v`, keyed `Agreement.…`. It
 * reads in `tx`, the customer write's own transaction, so it may lock what it judges against.
 */
export type AgreementCheck = (
  agreement: NonNullable<CustomerInput['Agreement']>,
  v: Violations,
  tx: Tx,
) => Promise<void>;

export function createCustomerService({ db }: { db: Db }) {
  const store = createCustomerStore(db);
  const cache = readThroughCache<string, { row: CustomerRow | null }>({
    max: 10_000,
    ttl: FOUND_TTL_MS,
    fetchMethod: async (nr, _old, { options }) => {
      const row = await store.get(nr, db);
      if (!row) options.ttl = MISS_TTL_MS;
      return { row };
    },
  });
  const listeners: ((customerNr: string) => void)[] = [];
  const agreementChecks: AgreementCheck[] = [];
  /**
   * Judges `input` by the customer's own rules, then those other domains add (the tariff weighs its
   * unit codes), and writes it with `write`, all in one transaction: a rule's lock holds until the
   * row is written. Throws `ValidationFailed` naming every violation, with nothing written.
   */
  function checkedWrite<T>(input: CustomerInput, v: Violations, write: (tx: Tx) => Promise<T>): Promise<T> {
    checkCustomer(input, v);
    return db.transaction(async (tx) => {
      for (const rule of agreementChecks) await rule(input.Agreement ?? {}, v, tx);
      v.throwIfAny();
      return write(tx);
    });
  }
  return {
    /**
     * Adds a rule an agreement must meet, judged with the customer's own on create and update
     * (pricing: every special unit code must have a unit weight in the tariffs still to be used).
     */
    checkAgreementsWith(rule: AgreementCheck): void {
      agreementChecks.push(rule);
    },

    /** Every special unit code an agreement lists, with its customer; `using` as for `get`. */
    specialUnitCodesInUse: (using: DbOrTx = db) => store.specialUnitCodes(using),

    /**
     * Calls `listener` with each customer created or changed through this process (pricing's caches
     * forget it, and a number it had just found unknown).
     */
    onChange(listener: (customerNr: string) => void): void {
      listeners.push(listener);
    },

    async create(input: CustomerInput & { CustomerNr: string }): Promise<CustomerView> {
      // The spec types customer numbers `int` in places (RecipientCustomerId, CustomerId of the
      // listing): a number that is not a 32-bit integer could not be named there.
      const v = new Violations();
      v.check(
        'CustomerNr',
        isInt32Text(input.CustomerNr) && /^[1-9]/.test(input.CustomerNr),
        `A customer number is a whole number from 1 to ${INT32_MAX}, without leading zeros.`,
      );
      const row = await checkedWrite(input, v, (tx) =>
        createCustomerStore(tx).insert({
          customerNr: input.CustomerNr,
          name: input.Name,
          orgNr: input.OrgNr ?? null,
          address: input.Address ?? null,
          agreement: input.Agreement ?? {},
          priceServiceId: newPriceServiceId(),
        }),
      );
      cache.delete(input.CustomerNr);
      if (!row) {
        throw new DomainError(
          'conflict',
          'customer_exists',
          `Customer number ${input.CustomerNr} already exists.`,
        );
      }
      for (const listener of listeners) listener(input.CustomerNr);
      return view(row);
    },

    /**
     * Corrects a customer: its name, organisation number, address and agreement are replaced (its
     * number and price-service id stay). Invoices already issued keep the buyer they were issued
     * to; shipments priced keep their price.
     */
    async update(customerNr: string, input: CustomerInput): Promise<CustomerView> {
      const row = await checkedWrite(input, new Violations(), (tx) =>
        createCustomerStore(tx).update(customerNr, {
          name: input.Name,
          orgNr: input.OrgNr ?? null,
          address: input.Address ?? null,
          agreement: input.Agreement ?? {},
        }),
      );
      cache.delete(customerNr);
      if (!row) throw notFound(`Customer ${customerNr}`);
      for (const listener of listeners) listener(customerNr);
      return view(row);
    },

    /** A page of customers by number: at most `limit` (default 100) after customer `after`. */
    list: async (q: { after?: string | undefined; limit?: number } = {}) =>
      (await store.list({ after: q.after, limit: q.limit ?? 100 })).map(view),

    /** `using`: the transaction to read in, when the caller holds one (the embedded database has one connection). */
    get: (customerNr: string, using: DbOrTx = db): Promise<CustomerRow | null> =>
      store.get(customerNr, using),

    /**
     * The customer, through a per-process cache (a booking's checks cost no round trip once warm);
     * `get` reads the table itself.
     */
    known: async (customerNr: string): Promise<CustomerRow | null> =>
      (await cache.fetch(customerNr))?.row ?? null,

    async existing(customerNrs: string[]): Promise<Set<string>> {
      if (customerNrs.length === 0) return new Set();
      return new Set(await store.existing(customerNrs));
    },

    byPriceServiceId: (id: string): Promise<CustomerRow | null> => store.byPriceServiceId(id),
  };
}

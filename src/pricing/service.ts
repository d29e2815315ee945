import type { Db } from '../db/client';
import type { Violations } from '../lib/errors';
import { isDate, osloDateTime } from '../schedule/calendar';
import { type CompiledTariff, compileTariff } from './compiled-tariff';
import { createResolver, type LookupDeps } from './context';
import { createQuote } from './quote';
import { type CompiledRates, compileRates, type ExchangeRateTable } from './rates';
import { readExchangeRates, readTariffs } from './store';
import type { TariffDocument } from './tariff';
import { createTariffAdmin } from './tariff-admin';
import { versionCache } from './versions';

/**
 * Pricing's service: the quote (`quote.ts`) on contexts resolved through caches (`context.ts`) of
 * tariff and exchange-rate versions (`versions.ts`), and their administration (`tariff-admin.ts`).
 */

export type {
  DomesticQuoteRequest,
  InternationalQuoteRequest,
  QuoteErrors,
  QuoteRequest,
  QuoteResult,
} from './quote';

/**
 * How long a process trusts its cached tariffs, exchange rates, postal-code terminals and customer
 * agreements. A change made through this process is seen at once; other processes see it within
 * this time. Entries are refreshed in the background from half this age, so under steady load a
 * request never waits for the database; one older than this (a process that was idle) is waited
 * for, and served on only while the database cannot answer.
 */
export const PRICING_CACHE_MS = 10_000;

/** What pricing reads of other domains (their services, never their tables). */
export interface PricingDeps extends LookupDeps {
  db: Db;
  cacheMs?: number;
  /** The routing terminals a tariff's zone matrix must cover (`PUT /admin/tariffs`). */
  terminals: { list(): Promise<readonly { Code: string }[]> };
}

/** The Oslo calendar date of a request date or date-time, or null when it is not a real one. */
export function requestDate(value: string): string | null {
  const m =
    /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,7})?)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(
      value.trim(),
    );
  if (!m?.[1] || !isDate(m[1])) return null;
  if (m[2] !== undefined && (Number(m[2]) > 23 || Number(m[3]) > 59 || Number(m[4] ?? 0) > 59)) return null;
  if (m[5] === undefined) return m[1];
  const instant = new Date(value.trim());
  return Number.isNaN(instant.getTime()) ? null : osloDateTime(instant).date;
}

/**
 * The pickup date of a price request: the given date or date-time's Oslo date, else `today`; a value
 * that is no real date is a violation of `field` (and `today` stands in, so the other rules still run).
 */
export function pickupDateOf(
  value: string | undefined,
  field: string,
  today: string,
  v: Pick<Violations, 'check'>,
): string {
  if (value === undefined) return today;
  const date = requestDate(value);
  v.check(field, date !== null, `The ${field} field is not a valid date.`);
  return date ?? today;
}

export type PricingService = ReturnType<typeof createPricingService>;

export function createPricingService(deps: PricingDeps) {
  const { db } = deps;
  const ttl = deps.cacheMs ?? PRICING_CACHE_MS;

  const tariffs = versionCache<TariffDocument, CompiledTariff>(() => readTariffs(db), compileTariff, ttl);
  const rates = versionCache<ExchangeRateTable, CompiledRates>(
    () => readExchangeRates(db),
    compileRates,
    ttl,
  );
  const resolver = createResolver(deps, tariffs, rates, ttl);
  const { prepare, quote } = createQuote(resolver);
  const admin = createTariffAdmin({
    db,
    catalog: deps.catalog,
    terminals: deps.terminals,
    tariffs,
    rates,
    today: resolver.today,
    agreements: deps.customers,
  });
  deps.catalog.checkReplacesWith?.((catalog, violations, tx) => admin.checkCatalog(catalog, violations, tx));
  deps.customers.checkAgreementsWith?.((agreement, violations, tx) =>
    admin.checkAgreement(agreement, violations, tx),
  );

  return {
    /**
     * The one price function: the calculators and booking all price through it, so a booked shipment
     * costs what the calculator quoted for the same inputs (CONTRACT §6).
     */
    quote,
    /** Today's date in Oslo (the default pickup date). */
    today: resolver.today,

    /** Checks, through the cache, that a customer exists and returns it. */
    customer: resolver.customer,
    postalCodeExists: resolver.postalCodeExists,
    customerByPriceServiceId: resolver.customerByPriceServiceId,

    /**
     * Resolves a request's context once and answers a synchronous quote function for it: booking
     * prepares before its transaction and prices the parcels it writes inside it.
     */
    prepare,

    ...admin,
  };
}

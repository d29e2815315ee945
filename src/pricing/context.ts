import type { LRUCache } from 'lru-cache';
import type { Catalog, CatalogRules } from '../catalog/service';
import type { DbOrTx, Tx } from '../db/client';
import type { Violations } from '../lib/errors';
import type { MaybePromise } from '../lib/maybe-promise';
import { readThroughCache } from '../lib/read-through-cache';
import { percentToBasisPoints } from '../lib/units';
import { osloDateTime } from '../schedule/calendar';
import type { CompiledTariff } from './compiled-tariff';
import type {
  AgreementFacts,
  DomesticContext,
  InternationalContext,
  ProductFacts,
  ServiceFacts,
} from './engine';
import { Collector, offeredServices } from './measures';
import type {
  DomesticQuoteRequest,
  InternationalQuoteRequest,
  QuoteErrors,
  Resolved,
  Resolver,
} from './quote';
import type { CompiledRates } from './rates';
import type { PricedNetwork } from './tariff';
import { inForce, type Version, type VersionCache } from './versions';

/**
 * Context resolution: the facts a quote needs besides its measures (tariff in force, product,
 * agreement, terminals, exchange rate), read through caches of other domains' services.
 */

/** A lookup that found nothing is trusted only briefly, so a customer or zip added just now prices soon. */
const MISS_TTL_MS = 1000;

/** What pricing reads of other domains (their services, never their tables). */
export interface LookupDeps {
  clock?: () => Date;
  catalog: {
    rules(): MaybePromise<CatalogRules>;
    /** Makes a catalogue an admin replaces meet a rule of pricing's (`checkCatalog`). */
    checkReplacesWith?(check: (catalog: Catalog, violations: Violations, tx: Tx) => Promise<void>): void;
    /** The stored products, read in `tx` (a tariff put or delete judges them under its lock). */
    productsIn(tx: Tx): Promise<PricedNetwork['products']>;
  };
  /** A code's serving terminal, or null when the code is not in the register (from its in-memory snapshot). */
  postalCodes: {
    terminalOf(code: string): Promise<{ terminal: string | null } | null>;
    /** Tells of a register or routing change through this process, so it is in force here at once. */
    onChange?(listener: () => void): void;
  };
  customers: {
    get(customerNr: string): Promise<CustomerFacts | null>;
    byPriceServiceId(id: string): Promise<CustomerFacts | null>;
    /** Tells of a customer changed through this process, so its agreement is in force here at once. */
    onChange?(listener: (customerNr: string) => void): void;
    /** The special unit codes the agreements list (a tariff must weigh them). */
    specialUnitCodesInUse(using?: DbOrTx): Promise<readonly { customerNr: string; code: string }[]>;
    /** Adds a rule agreements must meet on create and update, judged in the write's transaction. */
    checkAgreementsWith?(
      rule: (agreement: { SpecialUnitCodes?: string[] }, v: Violations, tx: Tx) => Promise<void>,
    ): void;
  };
}

export interface CustomerFacts {
  customerNr: string;
  agreement: { FreightDiscountPercent?: number; SpecialUnitCodes?: string[] };
}

function addError(errors: QuoteErrors, field: keyof QuoteErrors, message: string): void {
  errors[field] = [...(errors[field] ?? []), message];
}

const agreementOf = (c: CustomerFacts): AgreementFacts => ({
  discountBp: percentToBasisPoints(c.agreement.FreightDiscountPercent ?? 0),
  specialUnitCodes: c.agreement.SpecialUnitCodes ?? [],
});

/** Catalogue facts in the engine's terms, built once per catalogue snapshot. */
const factsBySnapshot = new WeakMap<
  object,
  { products: Map<string, ProductFacts>; services: Map<string, ServiceFacts | null> }
>();
function catalogFacts(rules: CatalogRules) {
  const known = factsBySnapshot.get(rules.snapshot);
  if (known) return known;
  const facts = {
    products: new Map(
      rules.snapshot.products.map((p) => [
        p.ProductCode,
        {
          code: p.ProductCode,
          name: p.Name,
          unitCodes: [...p.UnitCodes],
          services: [...p.Services],
          maxParcelWeightKg: p.MaxParcelWeightKg,
          maxShipmentWeightKg: p.MaxShipmentWeightKg,
          international: p.International,
        } satisfies ProductFacts,
      ]),
    ),
    services: new Map<string, ServiceFacts | null>(
      rules.snapshot.services.map((s) => [
        s.ServiceCode,
        { code: s.ServiceCode, name: s.Name, priceBasis: s.PriceBasis },
      ]),
    ),
  };
  factsBySnapshot.set(rules.snapshot, facts);
  return facts;
}

/** The cached lookups and the two context resolvers, with the day in Oslo. */
export function createResolver(
  deps: LookupDeps,
  tariffs: VersionCache<CompiledTariff>,
  rates: VersionCache<CompiledRates>,
  ttl: number,
) {
  const clock = deps.clock ?? (() => new Date());

  // An entry is fresh for half of `ttl`, then served while a background fetch refreshes it, until it
  // is `ttl` old (see PRICING_CACHE_MS and `lookup`).
  const freshMs = Math.max(1, ttl / 2);
  const cacheOptions = {
    max: 20_000,
    ttl: freshMs,
    allowStale: true,
    noDeleteOnStaleGet: true,
    noDeleteOnFetchRejection: true,
  } as const;
  const terminals = readThroughCache<string, { terminal: string | null; known: boolean }>({
    ...cacheOptions,
    fetchMethod: async (zip, _stale, { options }) => {
      const row = await deps.postalCodes.terminalOf(zip);
      if (!row?.terminal) options.ttl = MISS_TTL_MS;
      return { terminal: row?.terminal ?? null, known: row !== null };
    },
  });
  const customers = readThroughCache<string, { customer: CustomerFacts | null }>({
    ...cacheOptions,
    fetchMethod: async (nr, _stale, { options }) => {
      const customer = await deps.customers.get(nr);
      if (!customer) options.ttl = MISS_TTL_MS;
      return { customer };
    },
  });
  const priceServiceIds = readThroughCache<string, { customer: CustomerFacts | null }>({
    ...cacheOptions,
    fetchMethod: async (id, _stale, { options }) => {
      const customer = await deps.customers.byPriceServiceId(id);
      if (!customer) options.ttl = MISS_TTL_MS;
      return { customer };
    },
  });
  deps.postalCodes.onChange?.(() => terminals.clear());
  deps.customers.onChange?.((customerNr) => {
    customers.delete(customerNr);
    priceServiceIds.clear();
  });

  // The Oslo date cannot change within one UTC minute; formatting it per request would cost more
  // than the whole quote.
  // Every price request asks (the answer cache keys on it), so the real clock is read without a Date.
  const nowMs = deps.clock ? () => clock().getTime() : Date.now;
  let todayCache = { minute: Number.NaN, date: '' };
  const today = () => {
    const ms = nowMs();
    const minute = Math.floor(ms / 60_000);
    if (minute !== todayCache.minute) todayCache = { minute, date: osloDateTime(new Date(ms)).date };
    return todayCache.date;
  };

  function tariffIn(versions: Version<CompiledTariff>[], date: string): CompiledTariff | string {
    const version = inForce(versions, date);
    if (version) return version.compiled;
    const first = versions[0];
    return first
      ? `No tariff is in force on ${date}; the first starts ${first.validFrom}.`
      : 'No tariff is loaded.';
  }

  async function tariffOn(date: string): Promise<CompiledTariff | string> {
    return tariffIn(await tariffs.all(), date);
  }

  async function customer(nr: string): Promise<CustomerFacts | null> {
    return (await lookup(customers, nr))?.customer ?? null;
  }

  /**
   * A cached value at once when fresh. A found value past its freshness is served while a background
   * fetch refreshes it, until it is `ttl` old; an older one (a process that was idle) and a miss
   * (unknown customer or zip) wait for the database. When the database cannot answer, an old found
   * value is served on, and kept fresh a while so that not every request waits on the outage; a miss
   * or nothing held fails as the outage it is (503), never as "does not exist".
   */
  function lookup<V extends { customer: unknown } | { terminal: unknown }>(
    cache: LRUCache<string, V>,
    key: string,
  ): V | Promise<V | undefined> {
    const fresh = cache.get(key, { allowStale: false });
    if (fresh) return fresh;
    const held = cache.peek(key, { allowStale: true });
    const found =
      held !== undefined && ('customer' in held ? held.customer !== null : held.terminal !== null);
    if (!found) return cache.fetch(key, { allowStale: false });
    const staleForMs = -cache.getRemainingTTL(key);
    if (staleForMs < ttl - freshMs) return cache.fetch(key, { allowStale: true });
    return cache.fetch(key, { allowStale: false }).catch(() => {
      cache.set(key, held);
      return held;
    });
  }

  /** Everything a domestic quote needs besides the measures, from what the caches hold. */
  function domesticContext(
    req: Pick<
      DomesticQuoteRequest,
      'customerNr' | 'payerCustomerNr' | 'productCode' | 'fromZip' | 'toZip' | 'pickupDate' | 'services'
    >,
    versions: Version<CompiledTariff>[],
    payerEntry: { customer: CustomerFacts | null } | undefined,
    from: { terminal: string | null; known: boolean } | undefined,
    to: { terminal: string | null; known: boolean } | undefined,
    rules: CatalogRules,
    senderEntry: { customer: CustomerFacts | null } | undefined,
  ): Resolved<DomesticContext> {
    const errors: QuoteErrors = {};
    const tariff = tariffIn(versions, req.pickupDate);
    const payer = payerEntry?.customer ?? null;
    // Another payer prices on its agreement, but the sender must exist too.
    if (!senderEntry?.customer && req.customerNr !== req.payerCustomerNr)
      addError(errors, 'customerNr', `Customer number ${req.customerNr} does not exist.`);
    const facts = catalogFacts(rules);
    const product = facts.products.get(req.productCode);
    if (!product) addError(errors, 'productCode', `Product code ${req.productCode} does not exist.`);
    if (typeof tariff === 'string') addError(errors, 'pickupDate', tariff);
    if (!payer) {
      addError(
        errors,
        req.payerCustomerNr === req.customerNr ? 'customerNr' : 'payerCustomerNr',
        `Customer number ${req.payerCustomerNr} does not exist.`,
      );
    }
    for (const [field, zip, found] of [
      ['senderZip', req.fromZip, from],
      ['receiverZip', req.toZip, to],
    ] as const) {
      if (!found?.known) addError(errors, field, `Postal code ${zip} is not in the postal register.`);
      else if (!found.terminal) addError(errors, field, `No terminal serves postal code ${zip}.`);
    }
    if (
      !product ||
      typeof tariff === 'string' ||
      !payer ||
      !senderEntry?.customer ||
      !from?.terminal ||
      !to?.terminal
    ) {
      // The services are judged as well, so that one 400 names every broken rule (CONTRACT §4).
      const services = new Collector();
      offeredServices(services, req.services, facts.services, product ?? null);
      return { ok: false, errors: { ...errors, ...services.errors } };
    }
    return {
      ok: true,
      ctx: {
        tariff,
        product,
        services: facts.services,
        agreement: agreementOf(payer),
        fromTerminal: from.terminal,
        toTerminal: to.terminal,
      },
    };
  }

  /**
   * Everything a domestic quote needs besides the measures: tariff, product, agreement, terminals.
   * At once when the caches hold them all (nearly always), else once they are loaded.
   */
  function resolveDomestic(
    req: Pick<
      DomesticQuoteRequest,
      'customerNr' | 'payerCustomerNr' | 'productCode' | 'fromZip' | 'toZip' | 'pickupDate' | 'services'
    >,
  ): MaybePromise<Resolved<DomesticContext>> {
    const versions = tariffs.all();
    const payer = lookup(customers, req.payerCustomerNr);
    const sender = req.customerNr === req.payerCustomerNr ? payer : lookup(customers, req.customerNr);
    const from = lookup(terminals, req.fromZip);
    const to = lookup(terminals, req.toZip);
    const rules = deps.catalog.rules();
    if (
      versions instanceof Promise ||
      payer instanceof Promise ||
      sender instanceof Promise ||
      from instanceof Promise ||
      to instanceof Promise ||
      rules instanceof Promise
    ) {
      return Promise.all([versions, payer, from, to, rules, sender]).then((ready) =>
        domesticContext(req, ...ready),
      );
    }
    return domesticContext(req, versions, payer, from, to, rules, sender);
  }

  /** Everything an international quote needs besides the shipment: tariff, product, discount, rate. */
  async function resolveInternational(
    req: Pick<InternationalQuoteRequest, 'payerCustomerNr' | 'productCode' | 'pickupDate' | 'currency'>,
  ): Promise<Resolved<InternationalContext>> {
    const errors: QuoteErrors = {};
    const [tariff, rules, payer, rateVersions] = await Promise.all([
      tariffOn(req.pickupDate),
      deps.catalog.rules(),
      customer(req.payerCustomerNr),
      rates.all(),
    ]);
    const facts = catalogFacts(rules);
    const product = facts.products.get(req.productCode);
    if (!product) errors.productCode = [`Product code ${req.productCode} does not exist.`];
    else if (!product.international) {
      errors.productCode = [`Product ${req.productCode} is not valid for international prices.`];
    }
    if (!payer) errors.customerNr = [`Customer number ${req.payerCustomerNr} does not exist.`];
    if (typeof tariff === 'string') errors.pickupDate = [tariff];
    if (!product || !payer || typeof tariff === 'string' || Object.keys(errors).length > 0) {
      return { ok: false, errors };
    }
    return {
      ok: true,
      ctx: {
        tariff,
        product,
        services: facts.services,
        discountBp: agreementOf(payer).discountBp,
        currency: req.currency,
        ratePerEurMicro: inForce(rateVersions, req.pickupDate)?.compiled.micro.get(req.currency) ?? null,
      },
    };
  }

  return {
    resolveDomestic,
    resolveInternational,
    today,
    customer,
    /** Whether a Norwegian postal code is in the register (through the terminal cache). */
    async postalCodeExists(zip: string): Promise<boolean> {
      return (await lookup(terminals, zip))?.known ?? false;
    },
    /** The customer a price-service id belongs to, or null. */
    async customerByPriceServiceId(id: string): Promise<CustomerFacts | null> {
      return (await lookup(priceServiceIds, id))?.customer ?? null;
    },
  } satisfies Resolver & Record<string, unknown>;
}

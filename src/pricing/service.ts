import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { LRUCache } from 'lru-cache';
import { Value } from 'typebox/value';
import type { CatalogRules } from '../catalog/service';
import type { Db } from '../db/client';
import { DomainError, notFound, ValidationFailed } from '../lib/errors';
import { DATA_DIR } from '../reference-data/files';
import { loadWhenChanged } from '../reference-data/terminals-loads';
import { isDate, osloDateTime } from '../schedule/calendar';
import {
  type AgreementFacts,
  type DomesticContext,
  type DomesticQuote,
  type Errors,
  type InternationalContext,
  type InternationalQuote,
  type NoPrice,
  type ParcelMeasures,
  type ProductFacts,
  priceDomestic,
  priceInternational,
  type ServiceFacts,
  type Terms,
} from './engine';
import {
  assertRateRules,
  type CompiledRates,
  compileRates,
  type ExchangeRateTable,
  ExchangeRateTableSchema,
} from './rates';
import type { ExchangeRateSummary, TariffSummary } from './schemas';
import {
  deleteTariff,
  readExchangeRates,
  readTariffs,
  type StoredVersion,
  upsertExchangeRates,
  upsertTariff,
} from './store';
import {
  assertTariffRules,
  type CompiledTariff,
  compileTariff,
  type TariffDocument,
  TariffDocumentSchema,
} from './tariff';

/**
 * How long a process trusts its cached tariffs, exchange rates, postal-code terminals and customer
 * agreements. A change made through this process is seen at once; other processes see it within
 * this time. Stale entries are served while they are refreshed in the background, so a request never
 * waits for the database once the caches are warm.
 */
export const PRICING_CACHE_MS = 10_000;

/** A lookup that found nothing is trusted only briefly, so a customer or zip added just now prices soon. */
const MISS_TTL_MS = 1000;

/** What pricing reads of other domains (their services, never their tables). */
export interface PricingDeps {
  db: Db;
  clock?: () => Date;
  catalog: { rules(): Promise<CatalogRules> };
  postalCodes: { find(code: string): Promise<{ terminal: string | null } | null> };
  customers: {
    get(customerNr: string): Promise<CustomerFacts | null>;
    byPriceServiceId(id: string): Promise<CustomerFacts | null>;
  };
  cacheMs?: number;
}

interface CustomerFacts {
  customerNr: string;
  agreement: { FreightDiscountPercent?: number; SpecialUnitCodes?: string[] };
}

/** A domestic price request in the engine's terms (kg, dm³, cm); the calculators and booking build one. */
export interface DomesticQuoteRequest {
  kind: 'domestic';
  customerNr: string;
  /** Whose agreement prices the shipment (the customer itself unless another party pays). */
  payerCustomerNr: string;
  productCode: string;
  fromZip: string;
  toZip: string;
  /** `YYYY-MM-DD`: picks the tariff in force. */
  pickupDate: string;
  deliveryType: 0 | 1;
  services: string[];
  unitCode?: string;
  numberOfUnits?: number;
  weightKg?: number;
  volumeDm3?: number;
  loadMeters?: number;
  palletSpaces?: number;
  parcels?: ParcelMeasures[];
}

export interface InternationalQuoteRequest {
  kind: 'international';
  payerCustomerNr: string;
  productCode: string;
  originCountry: string;
  destinationCountry: string;
  pickupDate: string;
  weightGrams: number;
  volumeCm3: number;
  dangerousGoods: boolean;
  services: string[];
  terms: Terms;
  currency: string;
}

export type QuoteRequest = DomesticQuoteRequest | InternationalQuoteRequest;

/**
 * Logical names of what a quote can complain about beyond the engine's fields; each caller renames
 * them to its wire names (`customer_nr`, `Customernr`, `CustomerId`).
 */
export type QuoteErrors = Errors & Partial<Record<'customerNr' | 'currency', string[]>>;

export type QuoteResult =
  | { ok: true; kind: 'domestic'; quote: DomesticQuote }
  | { ok: true; kind: 'international'; quote: InternationalQuote }
  | { ok: false; errors: QuoteErrors }
  | { ok: 'noprice'; noPrice: NoPrice };

interface Version<C> {
  validFrom: string;
  sha256: string;
  source: string;
  loadedAt: Date;
  compiled: C;
}

/**
 * The versions of a table (tariffs, exchange rates) compiled once and kept in memory; refreshed from
 * the database when older than `ttlMs` (in the background once loaded), recompiling only changed
 * versions.
 */
function versionCache<T, C>(load: () => Promise<StoredVersion<T>[]>, compile: (t: T) => C, ttlMs: number) {
  let state: { versions: Version<C>[]; at: number } | null = null;
  let inflight: Promise<Version<C>[]> | null = null;

  const refresh = (): Promise<Version<C>[]> => {
    if (inflight) return inflight;
    const started = Date.now();
    const run = load()
      .then((rows) => {
        const known = new Map((state?.versions ?? []).map((v) => [`${v.validFrom}/${v.sha256}`, v]));
        const versions = rows.map(
          (r) =>
            known.get(`${r.validFrom}/${r.sha256}`) ?? {
              validFrom: r.validFrom,
              sha256: r.sha256,
              source: r.source,
              loadedAt: r.loadedAt,
              compiled: compile(r.content),
            },
        );
        state = { versions, at: started };
        return versions;
      })
      .finally(() => {
        inflight = null;
      });
    inflight = run;
    return run;
  };

  return {
    /** Every version, oldest first: at once when loaded (a stale list is refreshed in the background). */
    all(): Version<C>[] | Promise<Version<C>[]> {
      if (!state) return refresh();
      if (Date.now() - state.at > ttlMs) refresh().catch(() => {});
      return state.versions;
    },
    /** Reloads now (after a change made through this process). */
    reload: async () => {
      if (inflight) await inflight.catch(() => {});
      return refresh();
    },
  };
}

/** The version in force on a date: the latest whose `validFrom` is on or before it. */
function inForce<C>(versions: readonly Version<C>[], date: string): Version<C> | null {
  for (let i = versions.length - 1; i >= 0; i--) {
    const v = versions[i];
    if (v && v.validFrom <= date) return v;
  }
  return null;
}

function addError(errors: QuoteErrors, field: keyof QuoteErrors, message: string): void {
  errors[field] = [...(errors[field] ?? []), message];
}

const sha256Of = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

const agreementOf = (c: CustomerFacts): AgreementFacts => ({
  discountBp: Math.round((c.agreement.FreightDiscountPercent ?? 0) * 100),
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

const SHIPPED_TARIFFS = 'tariffs';
const SHIPPED_RATES = 'exchange-rates';

function readShipped<T>(
  folder: string,
  schema: typeof TariffDocumentSchema | typeof ExchangeRateTableSchema,
) {
  const dir = new URL(`${folder}/`, `file://${DATA_DIR}`);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const text = readFileSync(new URL(file, dir), 'utf8');
      const parsed: unknown = JSON.parse(text);
      if (!Value.Check(schema, parsed)) {
        const first = [...Value.Errors(schema, parsed)].slice(0, 5);
        throw new Error(`data/${folder}/${file} does not match its format: ${JSON.stringify(first)}`);
      }
      return { file: `${folder}/${file}`, content: parsed as T };
    });
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

export type PricingService = ReturnType<typeof createPricingService>;

export function createPricingService(deps: PricingDeps) {
  const { db } = deps;
  const clock = deps.clock ?? (() => new Date());
  const ttl = deps.cacheMs ?? PRICING_CACHE_MS;

  const tariffs = versionCache<TariffDocument, CompiledTariff>(() => readTariffs(db), compileTariff, ttl);
  const rates = versionCache<ExchangeRateTable, CompiledRates>(
    () => readExchangeRates(db),
    compileRates,
    ttl,
  );

  // Stale entries are served while a background fetch refreshes them (see PRICING_CACHE_MS).
  const cacheOptions = {
    max: 20_000,
    ttl,
    allowStale: true,
    noDeleteOnStaleGet: true,
    noDeleteOnFetchRejection: true,
  } as const;
  const terminals = new LRUCache<string, { terminal: string | null; known: boolean }>({
    ...cacheOptions,
    fetchMethod: async (zip, _stale, { options }) => {
      const row = await deps.postalCodes.find(zip);
      if (!row?.terminal) options.ttl = MISS_TTL_MS;
      return { terminal: row?.terminal ?? null, known: row !== null };
    },
  });
  const customers = new LRUCache<string, { customer: CustomerFacts | null }>({
    ...cacheOptions,
    fetchMethod: async (nr, _stale, { options }) => {
      const customer = await deps.customers.get(nr);
      if (!customer) options.ttl = MISS_TTL_MS;
      return { customer };
    },
  });
  const priceServiceIds = new LRUCache<string, { customer: CustomerFacts | null }>({
    ...cacheOptions,
    fetchMethod: async (id, _stale, { options }) => {
      const customer = await deps.customers.byPriceServiceId(id);
      if (!customer) options.ttl = MISS_TTL_MS;
      return { customer };
    },
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
   * A cached value at once when fresh; else the cache's fetch, which serves a stale value while it
   * refreshes, except a stale miss (unknown customer or zip), which waits for the fresh answer.
   */
  function lookup<V extends { customer: unknown } | { terminal: unknown }>(
    cache: LRUCache<string, V>,
    key: string,
  ): V | Promise<V | undefined> {
    const fresh = cache.get(key, { allowStale: false });
    if (fresh) return fresh;
    const stale = cache.peek(key, { allowStale: true });
    const miss = !stale || ('customer' in stale ? stale.customer === null : stale.terminal === null);
    return cache.fetch(key, { allowStale: !miss });
  }

  type Resolved<C> = { ok: true; ctx: C } | { ok: false; errors: QuoteErrors };

  /** Everything a domestic quote needs besides the measures: tariff, product, agreement, terminals. */
  async function resolveDomestic(
    req: Pick<
      DomesticQuoteRequest,
      'customerNr' | 'payerCustomerNr' | 'productCode' | 'fromZip' | 'toZip' | 'pickupDate'
    >,
  ): Promise<Resolved<DomesticContext>> {
    const errors: QuoteErrors = {};
    // Warm caches answer synchronously; only the catalogue's (always a promise) is awaited then.
    const inputs = [
      tariffs.all(),
      lookup(customers, req.payerCustomerNr),
      lookup(terminals, req.fromZip),
      lookup(terminals, req.toZip),
    ] as const;
    const [versions, payerEntry, from, to] = inputs.some((x) => x instanceof Promise)
      ? await Promise.all(inputs)
      : (inputs as unknown as Awaited<ReturnType<typeof Promise.all<typeof inputs>>>);
    const rules = await deps.catalog.rules();
    const tariff = tariffIn(versions, req.pickupDate);
    const payer = payerEntry?.customer ?? null;
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
    if (!product || typeof tariff === 'string' || !payer || !from?.terminal || !to?.terminal) {
      return { ok: false, errors };
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

  const quoteDomesticWith = (ctx: DomesticContext, req: DomesticQuoteRequest): QuoteResult => {
    const result = priceDomestic(
      {
        weightKg: req.weightKg,
        volumeDm3: req.volumeDm3,
        loadMeters: req.loadMeters,
        palletSpaces: req.palletSpaces,
        unitCode: req.unitCode,
        numberOfUnits: req.numberOfUnits,
        parcels: req.parcels,
        services: req.services,
        deliveryType: req.deliveryType,
        senderZip: req.fromZip,
        receiverZip: req.toZip,
      },
      ctx,
    );
    return result.ok ? { ok: true, kind: 'domestic', quote: result.value } : result;
  };

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

  const quoteInternationalWith = (ctx: InternationalContext, req: InternationalQuoteRequest): QuoteResult => {
    const result = priceInternational(
      {
        originCountry: req.originCountry,
        destinationCountry: req.destinationCountry,
        weightGrams: req.weightGrams,
        volumeCm3: req.volumeCm3,
        dangerousGoods: req.dangerousGoods,
        services: req.services,
        terms: req.terms,
      },
      ctx,
    );
    return result.ok === true ? { ok: true, kind: 'international', quote: result.value } : result;
  };

  /**
   * Resolves, with the caches, everything `quote` needs for a request except its measures, and
   * returns a synchronous quote for that context. Booking prepares before its transaction and
   * prices inside it, so no lookup runs while the transaction holds the (PGlite) connection.
   */
  async function prepare(req: QuoteRequest): Promise<Resolved<(measures: QuoteRequest) => QuoteResult>> {
    if (req.kind === 'domestic') {
      const resolved = await resolveDomestic(req);
      if (!resolved.ok) return resolved;
      return {
        ok: true,
        ctx: (m) => {
          if (m.kind !== 'domestic') throw new Error('a domestic request was prepared');
          return quoteDomesticWith(resolved.ctx, m);
        },
      };
    }
    const resolved = await resolveInternational(req);
    if (!resolved.ok) return resolved;
    return {
      ok: true,
      ctx: (m) => {
        if (m.kind !== 'international') throw new Error('an international request was prepared');
        return quoteInternationalWith(resolved.ctx, m);
      },
    };
  }

  /**
   * The one price function: the calculators and booking all price through it, so a booked shipment
   * costs what the calculator quoted for the same inputs (CONTRACT §6).
   */
  async function quote(req: QuoteRequest): Promise<QuoteResult> {
    const prepared = await prepare(req);
    return prepared.ok ? prepared.ctx(req) : prepared;
  }

  const summary = (v: Version<CompiledTariff>, doc?: TariffDocument): TariffSummary => ({
    ValidFrom: v.validFrom,
    Description: doc?.Description ?? null,
    Sha256: v.sha256,
    Source: v.source,
    LoadedAt: v.loadedAt.toISOString(),
    Products: [...v.compiled.products.keys()],
    InternationalProducts: [...(v.compiled.international?.products.keys() ?? [])],
  });

  return {
    quote,
    today,

    /** Checks, through the cache, that a customer exists and returns it. */
    customer,

    /** Whether a Norwegian postal code is in the register (through the terminal cache). */
    async postalCodeExists(zip: string): Promise<boolean> {
      return (await lookup(terminals, zip))?.known ?? false;
    },

    /** The customer a price-service id belongs to, or null. */
    async customerByPriceServiceId(id: string): Promise<CustomerFacts | null> {
      return (await lookup(priceServiceIds, id))?.customer ?? null;
    },

    /**
     * Resolves a request's context once and answers a synchronous quote function for it: booking
     * prepares before its transaction and prices the parcels it writes inside it.
     */
    prepare,

    /** Loads the shipped tariff versions and exchange-rate tables whose files changed since the last load. */
    async loadShipped(): Promise<boolean> {
      let changed = false;
      for (const { file, content } of readShipped<TariffDocument>(SHIPPED_TARIFFS, TariffDocumentSchema)) {
        assertTariffRules(content);
        const sha = sha256Of(content);
        changed =
          (await loadWhenChanged(db, file, sha, (tx) => upsertTariff(tx, content, sha, `file:${file}`))) ||
          changed;
      }
      for (const { file, content } of readShipped<ExchangeRateTable>(
        SHIPPED_RATES,
        ExchangeRateTableSchema,
      )) {
        assertRateRules(content);
        const sha = sha256Of(content);
        changed =
          (await loadWhenChanged(db, file, sha, (tx) =>
            upsertExchangeRates(tx, content, sha, `file:${file}`),
          )) || changed;
      }
      if (changed) await Promise.all([tariffs.reload(), rates.reload()]);
      return changed;
    },

    /** Validates a tariff version and loads it, replacing a version with the same `ValidFrom`. */
    async putTariff(doc: TariffDocument): Promise<TariffSummary> {
      assertTariffRules(doc);
      const rules = await deps.catalog.rules();
      const unknown = Object.keys(doc.Services).filter((code) => !rules.service(code));
      if (unknown.length > 0) {
        throw new ValidationFailed({
          Services: [`Service codes not in the catalogue: ${unknown.join(', ')}.`],
        });
      }
      await upsertTariff(db, doc, sha256Of(doc), 'admin');
      const versions = await tariffs.reload();
      const version = versions.find((v) => v.validFrom === doc.ValidFrom);
      if (!version) throw new Error('the tariff just stored was not read back');
      return summary(version, doc);
    },

    async listTariffs(): Promise<TariffSummary[]> {
      const versions = await tariffs.reload();
      const docs = new Map((await readTariffs(db)).map((r) => [r.validFrom, r.content]));
      return versions.map((v) => summary(v, docs.get(v.validFrom)));
    },

    /** The stored document of one version, as loaded. */
    async getTariff(validFrom: string): Promise<TariffDocument> {
      const doc = (await readTariffs(db)).find((r) => r.validFrom === validFrom)?.content;
      if (!doc) throw notFound(`Tariff version ${validFrom}`);
      return doc;
    },

    async deleteTariff(validFrom: string): Promise<void> {
      const versions = await tariffs.all();
      if (!versions.some((v) => v.validFrom === validFrom)) throw notFound(`Tariff version ${validFrom}`);
      if (versions.length === 1) {
        throw new DomainError('conflict', 'last_tariff', 'The only tariff version cannot be deleted.');
      }
      await deleteTariff(db, validFrom);
      await tariffs.reload();
    },

    async putExchangeRates(table: ExchangeRateTable): Promise<ExchangeRateSummary> {
      assertRateRules(table);
      await upsertExchangeRates(db, table, sha256Of(table), 'admin');
      const versions = await rates.reload();
      const version = versions.find((v) => v.validFrom === table.ValidFrom);
      if (!version) throw new Error('the rate table just stored was not read back');
      return rateSummary(version);
    },

    async listExchangeRates(): Promise<ExchangeRateSummary[]> {
      return (await rates.reload()).map(rateSummary);
    },

    /** Units of `currency` per EUR in force on a date, as written in the rate table (invoicing's euro amounts). */
    async rateInForce(date: string, currency: string): Promise<string | null> {
      return inForce(await rates.all(), date)?.compiled.text.get(currency) ?? null;
    },
  };
}

const rateSummary = (v: Version<CompiledRates>): ExchangeRateSummary => ({
  ValidFrom: v.validFrom,
  Source: v.source,
  LoadedAt: v.loadedAt.toISOString(),
  Rates: Object.fromEntries(v.compiled.text),
});

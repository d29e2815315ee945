import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Value } from 'typebox/value';
import type { Db, Tx } from '../db/client';
import { Violations } from '../lib/errors';
import { ttlCache } from '../lib/ttl-cache';
import { DATA_DIR } from '../reference-data/files';
import { loadWhenChanged, replaceAsAdmin } from '../reference-data/terminals-loads';
import {
  type CatalogSnapshot,
  checkCatalog,
  checkRequiredFields,
  checkServices,
  type RequiredField,
  requiredFieldsFor,
  snapshotOf,
} from './rules';
import { type Catalog, CatalogSchema, type Product, type ServiceDef } from './schemas';
import { readCatalog, writeCatalog } from './store';

export type { CatalogSnapshot, RequiredField } from './rules';
export type { Catalog, Product, ServiceDef, TimeWindow } from './schemas';

const SHIPPED_FILE = 'catalog/catalog.json';

/**
 * How long a process trusts its cached catalogue. A replace through this process is seen at once;
 * other processes (scale-out) see it within this time.
 */
export const CATALOG_CACHE_MS = 10_000;

/** The rule helpers bound to one catalogue snapshot: one `await catalog.rules()` per request. */
export interface CatalogRules {
  readonly snapshot: CatalogSnapshot;
  product(code: string): Product | null;
  service(code: string): ServiceDef | null;
  checkServices(
    product: Product,
    serviceCodes: readonly string[],
    violations: Violations,
    field?: string,
  ): ServiceDef[];
  requiredFieldsFor(serviceCodes: readonly string[]): RequiredField[];
  checkRequiredFields(
    serviceCodes: readonly string[],
    values: Readonly<Record<string, unknown>>,
    violations: Violations,
  ): void;
}

const bind = (snapshot: CatalogSnapshot): CatalogRules => ({
  snapshot,
  product: (code) => snapshot.productByCode.get(code) ?? null,
  service: (code) => snapshot.serviceByCode.get(code) ?? null,
  checkServices: (product, codes, violations, field) =>
    checkServices(snapshot, product, codes, violations, field),
  requiredFieldsFor: (codes) => requiredFieldsFor(snapshot, codes),
  checkRequiredFields: (codes, values, violations) =>
    checkRequiredFields(snapshot, codes, values, violations),
});

/** Reads and checks the shipped catalogue; a broken file stops the start with the violated paths. */
export function readShippedCatalog(): { catalog: Catalog; sha256: string } {
  const text = readFileSync(new URL(SHIPPED_FILE, `file://${DATA_DIR}`), 'utf8');
  const parsed: unknown = JSON.parse(text);
  if (!Value.Check(CatalogSchema, parsed)) {
    const first = [...Value.Errors(CatalogSchema, parsed)].slice(0, 5);
    throw new Error(`data/${SHIPPED_FILE} does not match the catalogue format: ${JSON.stringify(first)}`);
  }
  const violations = new Violations();
  checkCatalog(parsed, violations);
  violations.throwIfAny();
  return { catalog: parsed, sha256: createHash('sha256').update(text).digest('hex') };
}

export type CatalogService = ReturnType<typeof createCatalogService>;

export function createCatalogService({ db, cacheMs = CATALOG_CACHE_MS }: { db: Db; cacheMs?: number }) {
  const cache = ttlCache(
    (): Promise<CatalogRules> => readCatalog(db).then((c) => bind(snapshotOf(c))),
    cacheMs,
  );
  const rules = cache.get;
  /**
   * Other domains' rules a replaced catalogue must meet (pricing's: every product priced), judged in
   * the replace's own transaction, so a rule may lock what it judges against.
   */
  const replaceChecks: ((catalog: Catalog, violations: Violations, tx: Tx) => Promise<void>)[] = [];

  return {
    /** The catalogue with its rule helpers, cached (see `CATALOG_CACHE_MS`). */
    rules,
    async products(): Promise<readonly Product[]> {
      return (await rules()).snapshot.products;
    },
    /** The product, or null when the code is unknown. */
    async product(code: string): Promise<Product | null> {
      return (await rules()).product(code);
    },
    async services(): Promise<readonly ServiceDef[]> {
      return (await rules()).snapshot.services;
    },
    async service(code: string): Promise<ServiceDef | null> {
      return (await rules()).service(code);
    },
    /** See `rules.ts` `checkServices`. */
    async checkServices(
      product: Product,
      serviceCodes: readonly string[],
      violations: Violations,
      field = 'Services',
    ) {
      return (await rules()).checkServices(product, serviceCodes, violations, field);
    },
    async requiredFieldsFor(serviceCodes: readonly string[]): Promise<RequiredField[]> {
      return (await rules()).requiredFieldsFor(serviceCodes);
    },

    /** Adds a rule `replace` checks a new catalogue against, reporting with the catalogue's own. */
    checkReplacesWith(check: (catalog: Catalog, violations: Violations, tx: Tx) => Promise<void>): void {
      replaceChecks.push(check);
    },

    /** The stored products, read in `tx` (not the cache): what a change judged under a lock needs. */
    productsIn: async (tx: Tx): Promise<readonly Product[]> => (await readCatalog(tx)).Products,

    /** Loads the shipped catalogue when the file changed since the last load (start-up). */
    async loadShipped(): Promise<boolean> {
      const { catalog, sha256 } = readShippedCatalog();
      const loaded = await loadWhenChanged(db, SHIPPED_FILE, sha256, (tx) => writeCatalog(tx, catalog));
      if (loaded) cache.clear();
      return loaded;
    },

    /**
     * Replaces the whole catalogue (admin API) in one transaction. Reports every semantic violation
     * (duplicate codes, unknown services, and those of `checkReplacesWith`'s rules) as a 400. The shipped file no longer overwrites the
     * replaced catalogue, not even when a later release changes it.
     */
    async replace(catalog: Catalog): Promise<{ products: number; services: number }> {
      const violations = new Violations();
      checkCatalog(catalog, violations);
      await replaceAsAdmin(db, SHIPPED_FILE, catalog, async (tx) => {
        for (const check of replaceChecks) await check(catalog, violations, tx);
        violations.throwIfAny();
        await writeCatalog(tx, catalog);
      });
      cache.clear();
      return { products: catalog.Products.length, services: catalog.Services.length };
    },
  };
}

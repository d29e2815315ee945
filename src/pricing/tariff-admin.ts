import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Value } from 'typebox/value';
import type { Catalog } from '../catalog/service';
import type { Db, Tx } from '../db/client';
import { DomainError, notFound, Violations } from '../lib/errors';
import { formatOslo } from '../lib/oslo-time';
import { DATA_DIR } from '../reference-data/files';
import { loadWhenChanged, replaceAsAdmin } from '../reference-data/terminals-loads';
import type { CompiledTariff } from './compiled-tariff';
import {
  assertRateRules,
  type CompiledRates,
  type ExchangeRateTable,
  ExchangeRateTableSchema,
} from './rates';
import type { ExchangeRateSummary, TariffSummary } from './schemas';
import {
  deleteTariff,
  lockTariffFit,
  lockTariffVersions,
  readTariffs,
  upsertExchangeRates,
  upsertTariff,
} from './store';
import {
  assertTariffRules,
  checkTariffFits,
  checkTariffRules,
  type PricedNetwork,
  priceGaps,
  type TariffDocument,
  TariffDocumentSchema,
} from './tariff';
import { inForce, type Version, type VersionCache } from './versions';

/**
 * Tariff and exchange-rate administration: the shipped files loaded at start, versions put, listed
 * and deleted by admins, each change followed by a reload of this process's cache.
 */

const sha256Of = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

const SHIPPED_TARIFFS = 'tariffs';
const SHIPPED_RATES = 'exchange-rates';

/**
 * The load name of the shipped file of a version (`tariffs/2026-01-01.json`). A version an admin
 * puts or deletes marks it as the operator's, so a release that changes the file neither reprices
 * with it nor brings a deleted version back.
 */
const shippedName = (folder: string, validFrom: string) => `${folder}/${validFrom}.json`;

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
      const { ValidFrom } = parsed as { ValidFrom: string };
      // The name ties a version an admin put or deleted to the file it overrides.
      if (file !== `${ValidFrom}.json`)
        throw new Error(`data/${folder}/${file} must be named ${ValidFrom}.json`);
      return { file: shippedName(folder, ValidFrom), content: parsed as T };
    });
}

const summary = (v: Version<CompiledTariff>, doc?: TariffDocument): TariffSummary => ({
  ValidFrom: v.validFrom,
  Description: doc?.Description ?? null,
  Sha256: v.sha256,
  Source: v.source,
  LoadedAt: formatOslo(v.loadedAt),
  Products: [...v.compiled.products.keys()],
  InternationalProducts: [...(v.compiled.international?.products.keys() ?? [])],
});

const rateSummary = (v: Version<CompiledRates>): ExchangeRateSummary => ({
  ValidFrom: v.validFrom,
  Source: v.source,
  LoadedAt: formatOslo(v.loadedAt),
  Rates: Object.fromEntries(v.compiled.text),
});

/**
 * What administration works on: the database, the catalogue and the routing terminals a tariff must
 * price, and the two caches.
 */
export interface AdminDeps {
  db: Db;
  catalog: { productsIn(tx: Tx): Promise<PricedNetwork['products']> };
  /** The terminals of the routing data in force (`GET /v1/terminals`): the zone matrix's codes. */
  terminals: { list(): Promise<readonly { Code: string }[]> };
  tariffs: VersionCache<CompiledTariff>;
  rates: VersionCache<CompiledRates>;
  /** Today's date in Oslo: a tariff must stay in force on it. */
  today: () => string;
  /** The special unit codes the customers' agreements list: every tariff still to be used weighs them. */
  agreements: {
    /** `using`: the transaction to read in (the embedded database has one connection). */
    specialUnitCodesInUse(using: Tx): Promise<readonly { customerNr: string; code: string }[]>;
  };
}

/** The versions still to be used on `date`: the one in force then, and every later one. */
function stillUsed<T extends { validFrom: string }>(versions: readonly T[], date: string): T[] {
  const sorted = [...versions].sort((a, b) => a.validFrom.localeCompare(b.validFrom));
  const current = sorted.filter((r) => r.validFrom <= date).at(-1);
  return sorted.filter((r) => r === current || r.validFrom > date);
}

/** `code` of the agreements by the customers that list it, for a message. */
function customersListing(inUse: readonly { customerNr: string; code: string }[], code: string): string {
  const nrs = inUse.filter((u) => u.code === code).map((u) => u.customerNr);
  return nrs.length > 3 ? `${nrs.slice(0, 3).join(', ')} and ${nrs.length - 3} more` : nrs.join(', ');
}

/** The special unit codes in use that `doc` has no unit weight for. */
const unweighed = (doc: TariffDocument, inUse: readonly { code: string }[]) => [
  ...new Set(inUse.map((u) => u.code).filter((code) => !(code in doc.ChargeableWeight.UnitWeightsKg))),
];

export function createTariffAdmin({ db, catalog, terminals, tariffs, rates, today, agreements }: AdminDeps) {
  return {
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

    /**
     * Validates a tariff version, its own rules and its fit to the routing terminals and catalogue in
     * force (every violation at once), and loads it, replacing a version with the same `ValidFrom`.
     */
    async putTariff(doc: TariffDocument): Promise<TariffSummary> {
      const routing = await terminals.list();
      const v = checkTariffRules(doc, new Violations());
      await replaceAsAdmin(db, shippedName(SHIPPED_TARIFFS, doc.ValidFrom), doc, async (tx) => {
        // The catalogue and the agreements are judged as stored, under the lock their own writes
        // take, so a catalogue or agreement written meanwhile cannot slip past.
        await lockTariffFit(tx);
        checkTariffFits(
          doc,
          { terminals: new Set(routing.map((t) => t.Code)), products: await catalog.productsIn(tx) },
          v,
        );
        // A version still to be used must weigh every special unit code an agreement lists, or the
        // customer's prices and bookings with that code would be refused while it is in force.
        const stored = (await readTariffs(tx)).filter((r) => r.validFrom !== doc.ValidFrom);
        if (
          stillUsed([...stored, { validFrom: doc.ValidFrom }], today()).some(
            (r) => r.validFrom === doc.ValidFrom,
          )
        ) {
          const inUse = await agreements.specialUnitCodesInUse(tx);
          for (const code of unweighed(doc, inUse)) {
            v.add(
              'ChargeableWeight.UnitWeightsKg',
              `Unit code ${code} is in the agreement of customer ${customersListing(inUse, code)} and needs a unit weight.`,
            );
          }
        }
        v.throwIfAny();
        await upsertTariff(tx, doc, sha256Of(doc), 'admin');
      });
      const versions = await tariffs.reload();
      const version = versions.find((v) => v.validFrom === doc.ValidFrom);
      if (!version) throw new Error('the tariff just stored was not read back');
      return summary(version, doc);
    },

    /**
     * The reverse of `putTariff`'s fit: a catalogue an admin puts must be priced by every version
     * still to be used (the one in force today and the later ones), so `GET /v1/products` never
     * offers what cannot be quoted or booked. A tariff may price more than the catalogue offers, so
     * the order of a change is: the tariff first, then the catalogue. Adds to `v`, keyed by the
     * catalogue's paths.
     */
    async checkCatalog(next: Catalog, v: Violations, tx: Tx): Promise<void> {
      await lockTariffFit(tx);
      // A service the catalogue does not define is its own rule's violation, not a price's.
      const defined = new Set(next.Services.map((s) => s.ServiceCode));
      for (const { validFrom, content } of stillUsed(await readTariffs(tx), today())) {
        for (const gap of priceGaps(content, next.Products)) {
          if (gap.service !== undefined && !defined.has(gap.service)) continue;
          v.check(
            `Products[${gap.index}].${gap.field}`,
            false,
            `${gap.message} in the tariff valid from ${validFrom}.`,
          );
        }
      }
    },

    /**
     * An agreement's special unit codes must each have a unit weight in every tariff version still
     * to be used (customers' `checkAgreementsWith`): set the weight in the tariff first, then the
     * agreement. Adds to `v`, keyed by the agreement's paths. Judged in the agreement's write
     * transaction `tx`, under the tariff-fit lock a tariff put or delete also takes.
     */
    async checkAgreement(agreement: { SpecialUnitCodes?: string[] }, v: Violations, tx: Tx): Promise<void> {
      const codes = agreement.SpecialUnitCodes ?? [];
      if (codes.length === 0) return;
      await lockTariffFit(tx);
      for (const { validFrom, content } of stillUsed(await readTariffs(tx), today())) {
        codes.forEach((code, i) => {
          v.check(
            `Agreement.SpecialUnitCodes[${i}]`,
            code in content.ChargeableWeight.UnitWeightsKg,
            `Unit code ${code} has no unit weight in the tariff valid from ${validFrom}.`,
          );
        });
      }
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

    /**
     * Withdraws a version, unless no version would then be in force today (the last one, or the
     * one in force with only later ones left). Judged on the stored versions, locked, so two
     * deletes at once (or on two processes) cannot both pass.
     */
    async deleteTariff(validFrom: string): Promise<void> {
      await replaceAsAdmin(
        db,
        shippedName(SHIPPED_TARIFFS, validFrom),
        { deleted: validFrom },
        async (tx) => {
          await lockTariffFit(tx);
          const stored = await lockTariffVersions(tx);
          if (!stored.includes(validFrom)) throw notFound(`Tariff version ${validFrom}`);
          const left = stored.filter((v) => v !== validFrom);
          const date = today();
          if (!left.some((v) => v <= date)) {
            throw new DomainError(
              'conflict',
              'last_tariff',
              left.length === 0
                ? 'The only tariff version cannot be deleted.'
                : `Without this version no tariff is in force today (${date}); the next starts ${left[0]}.`,
            );
          }
          // The version that takes over (when this one is in force today) must weigh the agreements' codes.
          const docs = new Map((await readTariffs(tx)).map((r) => [r.validFrom, r.content]));
          const before = new Set(
            stillUsed(
              stored.map((v) => ({ validFrom: v })),
              date,
            ).map((r) => r.validFrom),
          );
          const inUse = await agreements.specialUnitCodesInUse(tx);
          const products = await catalog.productsIn(tx);
          for (const { validFrom: next } of stillUsed(
            left.map((v) => ({ validFrom: v })),
            date,
          )) {
            const doc = docs.get(next);
            if (!doc || before.has(next)) continue;
            const missing = unweighed(doc, inUse);
            if (missing.length > 0) {
              throw new DomainError(
                'conflict',
                'unit_code_unweighed',
                `Without this version the tariff valid from ${next} is in force, and it has no unit weight for ${missing
                  .map((code) => `${code} (agreement of customer ${customersListing(inUse, code)})`)
                  .join(', ')}.`,
              );
            }
            // The catalogue offers nothing the version taking over cannot price.
            const gaps = priceGaps(doc, products);
            if (gaps.length > 0) {
              throw new DomainError(
                'conflict',
                'catalog_unpriced',
                `Without this version the tariff valid from ${next} is in force, and it does not price what the catalogue offers: ${gaps
                  .slice(0, 5)
                  .map((g) => g.message)
                  .join('; ')}${gaps.length > 5 ? ` and ${gaps.length - 5} more` : ''}.`,
              );
            }
          }
          await deleteTariff(tx, validFrom);
        },
      );
      await tariffs.reload();
    },

    async putExchangeRates(table: ExchangeRateTable): Promise<ExchangeRateSummary> {
      assertRateRules(table);
      await replaceAsAdmin(db, shippedName(SHIPPED_RATES, table.ValidFrom), table, (tx) =>
        upsertExchangeRates(tx, table, sha256Of(table), 'admin'),
      );
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

import { asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../db/client';
import type { ExchangeRateTable } from './rates';
import { pricingExchangeRates, pricingTariffs } from './tables';
import type { TariffDocument } from './tariff';

/** A stored tariff version or exchange-rate table, with where it came from. */
export interface StoredVersion<T> {
  validFrom: string;
  content: T;
  sha256: string;
  source: string;
  loadedAt: Date;
}

export async function readTariffs(db: DbOrTx): Promise<StoredVersion<TariffDocument>[]> {
  const rows = await db.select().from(pricingTariffs).orderBy(asc(pricingTariffs.validFrom));
  return rows.map((r) => ({ ...r, content: r.document }));
}

/** Inserts the version, or replaces the one with the same `ValidFrom`. */
export async function upsertTariff(
  db: DbOrTx,
  document: TariffDocument,
  sha256: string,
  source: string,
): Promise<void> {
  await db
    .insert(pricingTariffs)
    .values({ validFrom: document.ValidFrom, document, sha256, source })
    .onConflictDoUpdate({
      target: pricingTariffs.validFrom,
      set: { document, sha256, source, loadedAt: sql`now()` },
    });
}

/**
 * Serialises, until the transaction ends, every change judged against the tariffs or judging them:
 * tariff puts and deletes, agreement writes (their special unit codes need unit weights) and
 * catalogue replaces (their products and services need prices). Each side judges the other's rows
 * under it, so two such changes at once (on two processes) cannot both pass a check the other
 * invalidates.
 */
export async function lockTariffFit(tx: Tx): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('pricing:tariff-fit'))`);
}

/** The stored versions' dates, their rows locked until the transaction ends. */
export async function lockTariffVersions(tx: Tx): Promise<string[]> {
  const rows = await tx
    .select({ validFrom: pricingTariffs.validFrom })
    .from(pricingTariffs)
    .orderBy(asc(pricingTariffs.validFrom))
    .for('update');
  return rows.map((r) => r.validFrom);
}

export async function deleteTariff(db: DbOrTx, validFrom: string): Promise<boolean> {
  const rows = await db
    .delete(pricingTariffs)
    .where(eq(pricingTariffs.validFrom, validFrom))
    .returning({ validFrom: pricingTariffs.validFrom });
  return rows.length > 0;
}

export async function readExchangeRates(db: DbOrTx): Promise<StoredVersion<ExchangeRateTable>[]> {
  const rows = await db.select().from(pricingExchangeRates).orderBy(asc(pricingExchangeRates.validFrom));
  return rows.map((r) => ({ ...r, content: r.table }));
}

export async function upsertExchangeRates(
  db: DbOrTx,
  table: ExchangeRateTable,
  sha256: string,
  source: string,
): Promise<void> {
  await db
    .insert(pricingExchangeRates)
    .values({ validFrom: table.ValidFrom, table, sha256, source })
    .onConflictDoUpdate({
      target: pricingExchangeRates.validFrom,
      set: { table, sha256, source, loadedAt: sql`now()` },
    });
}

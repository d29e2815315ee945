import { date, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { ExchangeRateTable } from './rates';
import type { TariffDocument } from './tariff';

/** Tariff versions; the version with the latest `valid_from` on or before the pickup date is in force. */
export const pricingTariffs = pgTable('pricing_tariffs', {
  validFrom: date('valid_from', { mode: 'string' }).primaryKey(),
  /** The validated tariff document, as loaded (docs/tariffs.md). */
  document: jsonb('document').$type<TariffDocument>().notNull(),
  /** SHA-256 of the canonical JSON of the document; caches compare it to reload only changes. */
  sha256: text('sha256').notNull(),
  /** `file:<name>` for shipped versions, `admin` for `PUT /admin/tariffs`. */
  source: text('source').notNull(),
  loadedAt: timestamp('loaded_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Exchange-rate tables (units per EUR); the latest `valid_from` on or before a date is in force. */
export const pricingExchangeRates = pgTable('pricing_exchange_rates', {
  validFrom: date('valid_from', { mode: 'string' }).primaryKey(),
  table: jsonb('rate_table').$type<ExchangeRateTable>().notNull(),
  sha256: text('sha256').notNull(),
  source: text('source').notNull(),
  loadedAt: timestamp('loaded_at', { withTimezone: true }).notNull().defaultNow(),
});

import type { InferSelectModel } from 'drizzle-orm';
import { integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import type { Product, ServiceDef } from './schemas';

/** Products of the catalogue; `definition` is the wire record (`docs/catalogue.md`), `position` the listing order. */
export const catalogProducts = pgTable('catalog_products', {
  productCode: text('product_code').primaryKey(),
  position: integer('position').notNull(),
  definition: jsonb('definition').$type<Product>().notNull(),
});

/** Services (options) of the catalogue, same layout as the products. */
export const catalogServices = pgTable('catalog_services', {
  serviceCode: text('service_code').primaryKey(),
  position: integer('position').notNull(),
  definition: jsonb('definition').$type<ServiceDef>().notNull(),
});

export type CatalogProductRow = InferSelectModel<typeof catalogProducts>;

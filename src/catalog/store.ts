import { asc } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import type { Catalog } from './schemas';
import { catalogProducts, catalogServices } from './tables';

export async function readCatalog(db: DbOrTx): Promise<Catalog> {
  // One query after the other: `db` may be a transaction, whose one connection takes one query at a time.
  const products = await db.select().from(catalogProducts).orderBy(asc(catalogProducts.position));
  const services = await db.select().from(catalogServices).orderBy(asc(catalogServices.position));
  return { Products: products.map((p) => p.definition), Services: services.map((s) => s.definition) };
}

/** Makes the stored catalogue equal `catalog` (call inside a transaction). */
export async function writeCatalog(tx: DbOrTx, catalog: Catalog): Promise<void> {
  await tx.delete(catalogProducts);
  await tx.delete(catalogServices);
  await tx
    .insert(catalogServices)
    .values(catalog.Services.map((s, position) => ({ serviceCode: s.ServiceCode, position, definition: s })));
  await tx
    .insert(catalogProducts)
    .values(catalog.Products.map((p, position) => ({ productCode: p.ProductCode, position, definition: p })));
}

import { eq, sql } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/client';
import { referenceDataLoads } from '../tables';

/** Serialises loads of `name` across processes until the transaction ends. */
export async function lockLoad(tx: Tx, name: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${name}))`);
}

/** The content hash last loaded as `name` (`admin:<hash>` after an admin replace), or null. */
export async function loadedHash(tx: DbOrTx, name: string): Promise<string | null> {
  const [loaded] = await tx.select().from(referenceDataLoads).where(eq(referenceDataLoads.name, name));
  return loaded?.sha256 ?? null;
}

/** Records that `name` now holds the content with hash `sha256`. */
export async function markLoaded(tx: DbOrTx, name: string, sha256: string): Promise<void> {
  await tx
    .insert(referenceDataLoads)
    .values({ name, sha256 })
    .onConflictDoUpdate({ target: referenceDataLoads.name, set: { sha256, loadedAt: sql`now()` } });
}

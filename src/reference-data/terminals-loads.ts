import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { referenceDataLoads } from './tables';

/** Marker prefix of data replaced through the admin API: the shipped file no longer overwrites it. */
export const ADMIN_MARKER = 'admin:';

/**
 * Runs `load` in one transaction when the shipped data named `name` has a different content hash
 * than what was loaded last (the `reference_data_loads` pattern of the postal register), so a
 * restart costs one small query. Data an admin replaced (marker `admin:…`) is kept: a later release
 * with a changed file does not overwrite it. Serialised across processes starting together.
 * Returns whether it loaded.
 */
export async function loadWhenChanged(
  db: Db,
  name: string,
  sha256: string,
  load: (tx: Tx) => Promise<void>,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${name}))`);
    const [loaded] = await tx.select().from(referenceDataLoads).where(eq(referenceDataLoads.name, name));
    if (loaded?.sha256 === sha256 || loaded?.sha256.startsWith(ADMIN_MARKER)) return false;
    await load(tx);
    await markLoaded(tx, name, sha256);
    return true;
  });
}

/** Records that `name` now holds the content with hash `sha256` (an admin replace passes `admin:<hash>`). */
export async function markLoaded(tx: Tx | Db, name: string, sha256: string): Promise<void> {
  await tx
    .insert(referenceDataLoads)
    .values({ name, sha256 })
    .onConflictDoUpdate({ target: referenceDataLoads.name, set: { sha256, loadedAt: sql`now()` } });
}

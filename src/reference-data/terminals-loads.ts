import { createHash } from 'node:crypto';
import type { Db, Tx } from '../db/client';
import { loadedHash, lockLoad, markLoaded } from './store/loads';

/** Marker prefix of data replaced through the admin API: the shipped file no longer overwrites it. */
export const ADMIN_MARKER = 'admin:';

/**
 * Runs `load` in one transaction when the shipped data named `name` has a different content hash
 * than what was loaded last (the `reference_data_loads` table), so a restart costs one small query.
 * Data an admin replaced (marker `admin:…`) is kept: a later release with a changed file does not
 * overwrite it. Serialised across processes starting together. Returns whether it loaded.
 */
export async function loadWhenChanged(
  db: Db,
  name: string,
  sha256: string,
  load: (tx: Tx) => Promise<void>,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    await lockLoad(tx, name);
    const loaded = await loadedHash(tx, name);
    if (loaded === sha256 || loaded?.startsWith(ADMIN_MARKER)) return false;
    await load(tx);
    await markLoaded(tx, name, sha256);
    return true;
  });
}

/**
 * Replaces the data named `name` through the admin API: `write` runs in one transaction that also
 * marks the data `admin:<hash of data>`, so the shipped file never overwrites it. Serialised with
 * other replaces and loads of `name` (two replaces at once re-inserted each other's rows: 500s and
 * deadlocks). Returns what `write` returns.
 */
export async function replaceAsAdmin<T>(
  db: Db,
  name: string,
  data: unknown,
  write: (tx: Tx) => Promise<T>,
): Promise<T> {
  const sha256 = createHash('sha256').update(JSON.stringify(data)).digest('hex');
  return db.transaction(async (tx) => {
    await lockLoad(tx, name);
    const written = await write(tx);
    await markLoaded(tx, name, `${ADMIN_MARKER}${sha256}`);
    return written;
  });
}

import { asc, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { postalCodes } from '../tables';
import type { RoutingData } from '../terminals-files';
import { assignTerminals } from '../terminals-routing';
import { terminalOverrides, terminals, transitDays } from '../terminals-tables';

/** Makes the routing tables equal `data` (call inside a transaction). */
export async function writeRouting(tx: DbOrTx, data: RoutingData): Promise<void> {
  await tx.delete(transitDays);
  await tx.delete(terminalOverrides);
  await tx.delete(terminals);
  if (data.terminals.length > 0) await tx.insert(terminals).values(data.terminals);
  for (let i = 0; i < data.transitDays.length; i += 1000) {
    await tx.insert(transitDays).values(data.transitDays.slice(i, i + 1000));
  }
  if (data.overrides.length > 0) await tx.insert(terminalOverrides).values(data.overrides);
}

export async function readRouting(db: DbOrTx): Promise<RoutingData> {
  // One query after the other: `db` may be a transaction, whose one connection takes one query at a time.
  const t = await db.select().from(terminals).orderBy(asc(terminals.code));
  const d = await db.select().from(transitDays);
  const o = await db.select().from(terminalOverrides).orderBy(asc(terminalOverrides.postalCode));
  return { terminals: t, transitDays: d, overrides: o };
}

/**
 * Sets `postal_codes.terminal` of every postal code from the stored terminals and overrides
 * (nearest terminal by great-circle distance unless overridden). Runs after any change to the
 * register or the routing data, in the same transaction; writes only the codes that change.
 * Returns how many codes changed.
 */
export async function assignPostalCodeTerminals(tx: DbOrTx): Promise<number> {
  const codes = await tx
    .select({
      postalCode: postalCodes.postalCode,
      municipalityCode: postalCodes.municipalityCode,
      lat: postalCodes.lat,
      lon: postalCodes.lon,
      terminal: postalCodes.terminal,
    })
    .from(postalCodes);
  const list = await tx.select().from(terminals);
  const overrides = await tx.select().from(terminalOverrides);
  const assigned = assignTerminals(codes, list, new Map(overrides.map((o) => [o.postalCode, o.terminal])));
  const changed = codes.filter((c) => (assigned.get(c.postalCode) ?? null) !== c.terminal);
  if (changed.length === 0) return 0;
  // One statement for the whole set (a JSON document is one parameter on both drivers).
  const rows = JSON.stringify(
    changed.map((c) => ({ code: c.postalCode, terminal: assigned.get(c.postalCode) ?? null })),
  );
  await tx.execute(sql`
    update postal_codes p set terminal = v.terminal
    from json_to_recordset(${rows}::json) as v(code text, terminal text)
    where p.postal_code = v.code`);
  return changed.length;
}

/** The postal codes among `codes` that have a terminal override. */
export async function overridesAt(db: DbOrTx, codes: readonly string[]): Promise<string[]> {
  if (codes.length === 0) return [];
  const rows = await db
    .select({ code: terminalOverrides.postalCode })
    .from(terminalOverrides)
    .where(inArray(terminalOverrides.postalCode, [...codes]))
    .orderBy(asc(terminalOverrides.postalCode));
  return rows.map((r) => r.code);
}

export async function deleteOverrides(tx: DbOrTx, codes: readonly string[]): Promise<void> {
  if (codes.length > 0)
    await tx.delete(terminalOverrides).where(inArray(terminalOverrides.postalCode, [...codes]));
}

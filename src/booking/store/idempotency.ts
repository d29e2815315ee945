import { and, eq, getTableColumns, isNull, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { idempotencyKeys } from '../tables';

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;

const keyIs = (apiKeyId: string, key: string) =>
  and(eq(idempotencyKeys.apiKeyId, apiKeyId), eq(idempotencyKeys.key, key));
const claimIs = (apiKeyId: string, key: string, token: string) =>
  and(keyIs(apiKeyId, key), eq(idempotencyKeys.claimToken, token));

/** The `Idempotency-Key` records of booking; every write is guarded by the claim token. */
export function createIdempotencyStore(db: DbOrTx) {
  return {
    /** Claims the key for a new request; false when a record exists already. */
    async claim(apiKeyId: string, key: string, requestHash: string, token: string): Promise<boolean> {
      const claimed = await db
        .insert(idempotencyKeys)
        .values({ apiKeyId, key, requestHash, claimToken: token })
        .onConflictDoNothing()
        .returning({ key: idempotencyKeys.key });
      return claimed.length > 0;
    },

    /**
     * The record with its age in ms by the database's clock, the clock that dated it: hosts whose
     * clocks differ from the database's judge a lease alike.
     */
    async get(apiKeyId: string, key: string): Promise<(IdempotencyRow & { ageMs: number }) | null> {
      const [row] = await db
        .select({
          ...getTableColumns(idempotencyKeys),
          ageMs: sql<number>`(extract(epoch from now() - ${idempotencyKeys.createdAt}) * 1000)::float8`,
        })
        .from(idempotencyKeys)
        .where(keyIs(apiKeyId, key));
      return row ?? null;
    },

    /** Deletes at most `limit` records created before `before` (by their index); the number deleted. */
    async deleteCreatedBefore(before: Date, limit: number): Promise<number> {
      const rows = await db.execute(sql`
        with gone as (
          delete from ${idempotencyKeys} where (api_key_id, key) in (
            select api_key_id, key from ${idempotencyKeys} where created_at < ${before} limit ${limit})
          returning 1
        )
        select count(*)::int as n from gone`);
      return (rows as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0;
    },

    /** Removes an expired record, unless it was renewed since it was read. */
    async removeExpired(apiKeyId: string, key: string, token: string): Promise<void> {
      // By its claim token, not its time: PostgreSQL keeps microseconds a JavaScript Date has not.
      await db.delete(idempotencyKeys).where(claimIs(apiKeyId, key, token));
    },

    /** Takes over the unanswered claim `previousToken`; false when another retry took it first. */
    async takeOver(apiKeyId: string, key: string, previousToken: string, token: string): Promise<boolean> {
      const taken = await db
        .update(idempotencyKeys)
        .set({ createdAt: sql`now()`, claimToken: token })
        .where(and(claimIs(apiKeyId, key, previousToken), isNull(idempotencyKeys.responseStatus)))
        .returning({ key: idempotencyKeys.key });
      return taken.length > 0;
    },

    /** Stores the answer of the claim `token`; false when the claim is no longer ours. */
    async answer(
      apiKeyId: string,
      key: string,
      token: string,
      response: { status: number; body: unknown; headers: Record<string, string> },
    ): Promise<boolean> {
      const written = await db
        .update(idempotencyKeys)
        .set({
          responseStatus: response.status,
          responseBody: response.body,
          responseHeaders: response.headers,
        })
        .where(claimIs(apiKeyId, key, token))
        .returning({ key: idempotencyKeys.key });
      return written.length > 0;
    },

    /** Frees the claim `token`, if it is still ours. */
    async release(apiKeyId: string, key: string, token: string): Promise<void> {
      await db.delete(idempotencyKeys).where(claimIs(apiKeyId, key, token));
    },
  };
}

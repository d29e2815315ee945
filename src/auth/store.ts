import { randomBytes } from 'node:crypto';
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';

import type { Scope } from './access';
import { apiKeys, settings } from './tables';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export function createAuthStore(db: DbOrTx) {
  return {
    async insertKey(row: {
      id: string;
      name: string;
      keyHash: string;
      scopes: Scope[];
      customerNrs: string[];
    }) {
      const [inserted] = await db.insert(apiKeys).values(row).returning();
      if (!inserted) throw new Error('insert returned no row');
      return inserted;
    },

    async activeKeyByHash(keyHash: string) {
      const [row] = await db
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)));
      return row ?? null;
    },

    async activeKeyById(id: string) {
      const [row] = await db
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)));
      return row ?? null;
    },

    /**
     * At most `limit` keys, newest first (by creation, then id), after key `after` when given; null
     * when `after` names no key.
     */
    async listKeys(q: { after?: string | undefined; limit: number }) {
      if (q.after !== undefined) {
        const [known] = await db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.id, q.after));
        if (!known) return null;
      }
      return db
        .select()
        .from(apiKeys)
        .where(
          q.after === undefined
            ? undefined
            : sql`(${apiKeys.createdAt}, ${apiKeys.id}) < (select created_at, id from api_keys where id = ${q.after})`,
        )
        .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
        .limit(q.limit);
    },

    async revokeKey(id: string): Promise<boolean> {
      const rows = await db
        .update(apiKeys)
        .set({ revokedAt: sql`now()` })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
        .returning({ id: apiKeys.id });
      return rows.length > 0;
    },

    /** True when an unrevoked key has the `admin` scope. */
    async hasActiveAdminKey(): Promise<boolean> {
      const rows = await db
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(and(isNull(apiKeys.revokedAt), sql`'admin' = any(${apiKeys.scopes})`))
        .limit(1);
      return rows.length > 0;
    },

    async countKeys(): Promise<number> {
      const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(apiKeys);
      return row?.n ?? 0;
    },

    /** The installation's token-signing secret: created once, then shared by every process. */
    async tokenSecret(): Promise<string> {
      await db
        .insert(settings)
        .values({ key: 'token_secret', value: randomBytes(32).toString('base64url') })
        .onConflictDoNothing();
      const [row] = await db.select().from(settings).where(eq(settings.key, 'token_secret'));
      if (!row) throw new Error('token secret missing after insert');
      return row.value;
    },
  };
}

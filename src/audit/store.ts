import { and, desc, eq, lt, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { adminAudit } from './tables';

export type AuditRow = typeof adminAudit.$inferSelect;
export type NewAuditRow = typeof adminAudit.$inferInsert;

export function createAuditStore(db: DbOrTx) {
  return {
    /** Writes a pending row; its id. */
    async begin(row: NewAuditRow): Promise<number> {
      const [inserted] = await db.insert(adminAudit).values(row).returning({ id: adminAudit.id });
      if (!inserted) throw new Error('audit row not written');
      return inserted.id;
    },

    /** The outcome; `made` adds what the change made (a new key's id) to the row's parameters. */
    async settle(id: number, status: number, at: Date, made?: Record<string, string>): Promise<void> {
      await db
        .update(adminAudit)
        .set({
          status,
          settledAt: at,
          ...(made && { params: sql`${adminAudit.params} || ${JSON.stringify(made)}::jsonb` }),
        })
        .where(eq(adminAudit.id, id));
    },

    /** At most `limit` rows, newest first, before id `before`, of key `keyId` when given. */
    list(q: { before?: number | undefined; keyId?: string | undefined; limit: number }): Promise<AuditRow[]> {
      const where: SQL[] = [];
      if (q.before !== undefined) where.push(lt(adminAudit.id, q.before));
      if (q.keyId !== undefined) where.push(eq(adminAudit.keyId, q.keyId));
      return db
        .select()
        .from(adminAudit)
        .where(and(...where))
        .orderBy(desc(adminAudit.id))
        .limit(q.limit);
    },

    /** Deletes rows older than `before`; the number deleted. */
    async deleteOlderThan(before: Date): Promise<number> {
      const rows = await db
        .delete(adminAudit)
        .where(lt(adminAudit.at, before))
        .returning({ id: adminAudit.id });
      return rows.length;
    },
  };
}

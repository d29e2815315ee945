import type { Account } from '../auth/access';
import type { Db, Tx } from '../db/client';
import { formatOslo } from '../lib/oslo-time';
import { type AuditRow, createAuditStore } from './store';

export interface AuditEntry {
  Id: number;
  Time: string;
  KeyId: string;
  KeyName: string;
  Method: string;
  Route: string;
  Path: string;
  Params: Record<string, string>;
  RequestId: string;
  Status: number | null;
  SettledTime: string | null;
}

const entry = (r: AuditRow): AuditEntry => ({
  Id: r.id,
  Time: formatOslo(r.at),
  KeyId: r.keyId,
  KeyName: r.keyName,
  Method: r.method,
  Route: r.route,
  Path: r.path,
  Params: r.params,
  RequestId: r.requestId,
  Status: r.status,
  SettledTime: r.settledAt ? formatOslo(r.settledAt) : null,
});

export type AuditService = ReturnType<typeof createAuditService>;

/** The administration's audit trail (`docs/security.md#audit-trail`). */
export function createAuditService({
  db,
  retentionDays,
  clock = () => new Date(),
}: {
  db: Db;
  retentionDays: number;
  clock?: () => Date;
}) {
  const store = createAuditStore(db);
  return {
    /** Records a change about to be made; the id to settle it with. */
    begin(
      account: Account,
      request: {
        method: string;
        route: string;
        path: string;
        params: Record<string, string>;
        requestId: string;
      },
    ) {
      return store.begin({
        at: clock(),
        keyId: account.keyId,
        keyName: account.name,
        method: request.method,
        route: request.route,
        path: request.path,
        params: request.params,
        requestId: request.requestId,
      });
    },

    /** Records the change's outcome: the status answered, and what the change made when it says. */
    settle: (id: number, status: number, made?: Record<string, string>) =>
      store.settle(id, status, clock(), made),

    /** Newest first, a page of `Limit` (default 100) before `Before`, of `KeyId` when given. */
    async list(q: { Before?: number; KeyId?: string; Limit?: number }) {
      const limit = q.Limit ?? 100;
      const rows = await store.list({ before: q.Before, keyId: q.KeyId, limit: limit + 1 });
      const page = rows.slice(0, limit);
      return { Entries: page.map(entry), NextBefore: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
    },

    /** Deletes rows past the retention. `claim` (the job's tick) runs first, in the same transaction. */
    prune(claim?: (tx: Tx) => Promise<void>): Promise<{ aged: number }> {
      return db.transaction(async (tx) => {
        await claim?.(tx);
        const aged = await createAuditStore(tx).deleteOlderThan(
          new Date(clock().getTime() - retentionDays * 86_400_000),
        );
        return { aged };
      });
    },
  };
}

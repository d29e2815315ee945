import { and, desc, eq, getTableColumns, ilike, lt, or, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { columnList, jsonRecord } from '../db/json-record';
import { requestLog } from './tables';

export type RequestLogRow = typeof requestLog.$inferSelect;
export type NewRequestLogRow = typeof requestLog.$inferInsert;

export interface RequestLogQuery {
  /** Null for an administrator, who sees every row. */
  visibleTo: { keyId: string; customerNrs: string[]; scopes: string[] } | null;
  /** An exact status, or a class as [from, to). */
  status?: { from: number; to: number };
  /** Part of the path, any case. */
  path?: string;
  method?: string;
  /** Rows older than this id (paging, newest first). */
  before?: number;
  limit: number;
}

const textArray = (values: readonly string[]) =>
  sql`array[${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )}]::text[]`;

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** What PostgreSQL's text cannot hold: the NUL character and a lone surrogate (not UTF-8). */
const UNSTORABLE = /[\0\p{Cs}]/gu;

/** Strings as PostgreSQL can store them: one unstorable character must not cost the whole batch. */
const storable = (_key: string, value: unknown) =>
  typeof value === 'string' ? value.replace(UNSTORABLE, '\uFFFD') : value;

const columns = getTableColumns(requestLog);
/** Every column but the identity, which the database numbers in the batch's order (`with ordinality`). */
const written = columnList(
  Object.values(columns)
    .filter((c) => !c.generatedIdentity)
    .map((c) => c.name),
);

/** The SQL of the request log (the only place that reads or writes `request_log`). */
export function createRequestLogStore(db: DbOrTx) {
  return {
    /** One statement for the batch, its rows as one JSON parameter (see `jsonRecord`). */
    async insertMany(rows: NewRequestLogRow[]): Promise<void> {
      if (rows.length === 0) return;
      const json = JSON.stringify(
        rows.map((row) => jsonRecord(columns, row)),
        storable,
      );
      await db.execute(
        sql`insert into request_log (${written})
            select ${written} from json_populate_recordset(null::request_log, ${json}::json) with ordinality
             order by ordinality`,
      );
    },

    list(q: RequestLogQuery): Promise<RequestLogRow[]> {
      const where: (SQL | undefined)[] = [];
      if (q.visibleTo) {
        // A row is the caller's when its key is the caller's, or when every customer it was made for
        // is one the caller acts for (a key for customers A and B does not show A's key B's
        // requests) and the caller holds every scope of the key that made it (a price-only key does
        // not read the invoice reports another key fetched).
        const { customerNrs: nrs, scopes } = q.visibleTo;
        where.push(
          or(
            eq(requestLog.keyId, q.visibleTo.keyId),
            nrs.length > 0
              ? sql`(cardinality(${requestLog.customerNrs}) > 0 and ${requestLog.customerNrs} <@ ${textArray(nrs)}
                     and ${requestLog.scopes} <@ ${textArray(scopes)})`
              : undefined,
          ),
        );
      }
      if (q.status) {
        where.push(sql`${requestLog.status} >= ${q.status.from} and ${requestLog.status} < ${q.status.to}`);
      }
      if (q.path) where.push(ilike(requestLog.url, `%${likeEscape(q.path)}%`));
      if (q.method) where.push(eq(requestLog.method, q.method.toUpperCase()));
      if (q.before !== undefined) where.push(lt(requestLog.id, q.before));
      return db
        .select()
        .from(requestLog)
        .where(and(...where))
        .orderBy(desc(requestLog.id))
        .limit(q.limit);
    },

    /** Deletes rows older than `before`; the number deleted. */
    async deleteOlderThan(before: Date): Promise<number> {
      const rows = await db
        .delete(requestLog)
        .where(lt(requestLog.at, before))
        .returning({ id: requestLog.id });
      return rows.length;
    },

    /** Keeps the newest `keep` rows of each key; the number deleted. */
    async deleteBeyondPerKey(keep: number): Promise<number> {
      const rows = await db.execute(sql`
        delete from request_log where id in (
          select id from (
            select id, row_number() over (partition by key_id order by id desc) as n from request_log
          ) ranked where n > ${keep}
        ) returning id`);
      return (rows as unknown as { rows: unknown[] }).rows.length;
    },
  };
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';

/** `Limit` and `After` of a keyset-paged admin list (`GET /admin/customers`, `/admin/api-keys`). */
export const PageQuery = (after: string) =>
  Type.Object({
    Limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        default: 100,
        description: 'Entries a page (at most 1 000).',
      }),
    ),
    After: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: `${after}: the page starts after it. The \`Link: <…>; rel="next"\` header of a page gives the next page's address.`,
      }),
    ),
  });

export const DEFAULT_PAGE = 100;

/**
 * A page of `rows`, read as `limit + 1` rows so that one more tells there is a next page: its address
 * goes in an RFC 8288 `Link: <…>; rel="next"` header (this request's path and query, `Limit` and
 * `After` in any spelling replaced, `After` set to the page's last key). Answers the page.
 */
export function linkNext<R>(
  request: FastifyRequest,
  reply: FastifyReply,
  rows: readonly R[],
  limit: number,
  keyOf: (row: R) => string,
): R[] {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  if (rows.length > limit && last !== undefined) {
    const next = new URL(request.url, 'http://kolli');
    // Names bind in any case and as a list of one (`?limit=2`, `Limit[0]=2`): the client's own
    // spelling goes, or the next page would carry `limit` and `Limit`, refused as one given twice.
    for (const name of [...next.searchParams.keys()]) {
      if (/^(limit|after)(\[\d+\])?$/i.test(name)) next.searchParams.delete(name);
    }
    next.searchParams.set('Limit', String(limit));
    next.searchParams.set('After', keyOf(last));
    reply.header('link', `<${next.pathname}${next.search}>; rel="next"`);
  }
  return page;
}

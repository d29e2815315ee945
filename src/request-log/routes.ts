import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authErrors, Nullable, problemResponses } from '../http/schemas';
import type { RequestLogService } from './service';

const RequestLogQuery = Type.Object({
  Status: Type.Optional(
    Type.String({
      pattern: '^[1-5]([0-9]{2}|[xX]{2})$',
      description: 'An exact status (`400`) or a class (`4xx`).',
    }),
  ),
  Path: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Part of the path or query, any case.' }),
  ),
  Method: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3,7}$' })),
  Before: Type.Optional(
    // Bounded: ids are exact integers, and a larger number would reach the database as out of range.
    Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Entries older than this Id (the previous page’s NextBefore).',
    }),
  ),
  Limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
});

const Entry = Type.Object({
  Id: Type.Integer(),
  Time: Type.String({
    description: 'When the request arrived, Oslo local time (YYYY-MM-DDTHH:mm:ss, CONTRACT §2).',
  }),
  KeyId: Type.String(),
  Method: Type.String(),
  Path: Type.String({ description: 'Path and query as sent, secret parameters redacted.' }),
  Status: Type.Integer(),
  DurationMs: Type.Number(),
  RequestId: Type.String({ description: 'The X-Request-Id of the answer.' }),
  RequestContentType: Nullable(Type.String()),
  RequestBody: Nullable(Type.String({ description: 'Redacted and capped.' })),
  ResponseContentType: Nullable(Type.String()),
  ResponseBody: Nullable(Type.String({ description: 'Redacted and capped; binary answers are described.' })),
});

const RequestLogPage = Type.Object({
  Enabled: Type.Boolean({ description: 'False when this installation does not record requests.' }),
  Entries: Type.Array(Entry),
  NextBefore: Nullable(Type.Integer()),
});

export const requestLogRoutes: FastifyPluginAsyncTypebox<{ requestLog: RequestLogService }> = async (
  app,
  { requestLog },
) => {
  app.get(
    '/v1/RequestLog',
    {
      config: { unlogged: true },
      schema: {
        tags: ['Request log'],
        summary: 'The requests made with this account’s keys, newest first',
        description:
          'Every request made with a key or token of the customers this key acts for: method, path, status, duration, request id and the bodies, with credentials, secrets and key values redacted before they were stored. Kept for a bounded time and count; on by default in the sandbox, off by default in production (then `Enabled` is false).',
        querystring: RequestLogQuery,
        response: { 200: RequestLogPage, ...problemResponses(400), ...authErrors },
      },
    },
    async (request) => requestLog.list(request.account, request.query),
  );
};

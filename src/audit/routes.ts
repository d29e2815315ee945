import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authErrors, Nullable, problemResponses } from '../http/schemas';
import type { AuditService } from './service';

const AuditQuery = Type.Object({
  Before: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Entries older than this Id (the previous page’s NextBefore).',
    }),
  ),
  KeyId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'Only this key’s changes.' }),
  ),
  Limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
});

const AuditEntry = Type.Object({
  Id: Type.Integer(),
  Time: Type.String({ description: 'When the change was requested, Oslo local time (CONTRACT §2).' }),
  KeyId: Type.String(),
  KeyName: Type.String(),
  Method: Type.String(),
  Route: Type.String({ description: 'The operation, as declared (`/admin/customers/:customerNr`).' }),
  Path: Type.String({ description: 'The path as sent, without the query.' }),
  Params: Type.Record(Type.String(), Type.String(), {
    description: 'What was changed: the path’s parameters.',
  }),
  RequestId: Type.String({ description: 'The X-Request-Id of the answer (the access log has the rest).' }),
  Status: Nullable(
    Type.Integer({ description: 'The status answered; null when the outcome was never recorded.' }),
  ),
  SettledTime: Nullable(Type.String({ description: 'When the answer was sent, Oslo local time.' })),
});

export const auditRoutes: FastifyPluginAsyncTypebox<{ audit: AuditService }> = async (app, { audit }) => {
  app.get(
    '/admin/audit',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['Administration'],
        summary: 'The audit trail of the administration, newest first',
        description:
          'One entry per change requested through the admin API (`POST`, `PUT`, `PATCH`, `DELETE` of an `/admin` operation that reached its handler): who (key id and name), when, which operation and target, and the status answered. Written before the change is made, so a change that could not be recorded is not made. Bodies are not kept (they may hold keys). Kept `KOLLI_AUDIT_RETENTION_DAYS` (365) days.',
        querystring: AuditQuery,
        response: {
          200: Type.Object({ Entries: Type.Array(AuditEntry), NextBefore: Nullable(Type.Integer()) }),
          ...problemResponses(400),
          ...authErrors,
        },
      },
    },
    async (request) => audit.list(request.query),
  );
};

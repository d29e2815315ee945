import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { AuditService } from './service';

const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const pending = new WeakMap<FastifyRequest, number>();
const made = new WeakMap<FastifyRequest, Record<string, string>>();

/**
 * What an audited change made that its path does not name (the id of a key it created), added to
 * its row's parameters when it is settled. A route calls it once it has made the change.
 */
export function auditMade(request: FastifyRequest, params: Record<string, string>): void {
  made.set(request, { ...made.get(request), ...params });
}

const changes = (method: RouteOptions['method']) =>
  (Array.isArray(method) ? method : [method]).some((m) => CHANGES.has(m));

const asHooks = <T>(hooks: T | T[] | undefined): T[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

/**
 * Audits the changes made through the admin API: every POST, PUT, PATCH and DELETE of an
 * `admin`-scope route gets a row before its handler runs (a change that cannot be recorded is not
 * made: the request fails), settled with the status before the answer is sent. Added to those
 * routes alone, so no other request pays for it. Requests refused before the handler
 * (authentication, validation) change nothing and are not audited; the access log has them.
 */
export const auditPlugin = fp(async (app: FastifyInstance, { audit }: { audit: AuditService }) => {
  async function begin(request: FastifyRequest) {
    if (!request.account || !CHANGES.has(request.method)) return;
    const id = await audit.begin(request.account, {
      method: request.method,
      route: request.routeOptions.url ?? request.url,
      path: request.url.split('?')[0] ?? request.url,
      params: { ...(request.params as Record<string, string>) },
      requestId: request.id,
    });
    pending.set(request, id);
  }
  // Settled before the answer goes out: a client that reads the trail after its answer finds it.
  async function settle(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const id = pending.get(request);
    if (id === undefined) return payload;
    pending.delete(request);
    try {
      await audit.settle(id, reply.statusCode, made.get(request));
    } catch (err) {
      // The row stays, with no status: a change whose outcome was not recorded.
      request.log.error({ err, auditId: id }, 'audit row not settled');
    }
    return payload;
  }
  app.addHook('onRoute', (route) => {
    if (route.config?.scope !== 'admin' || !changes(route.method)) return;
    route.preHandler = [...asHooks(route.preHandler), begin];
    route.onSend = [...asHooks(route.onSend), settle];
  });
});

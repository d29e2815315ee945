import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { bearerCredential } from '../auth/plugin';
import { bodyAsSent } from '../http/route-input';
import type { RequestLogService } from './service';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Not written to the request log (reading the log itself). */
    unlogged?: boolean;
  }
}

const responsePayload = new WeakMap<FastifyRequest, unknown>();

const header = (v: string | string[] | number | undefined) =>
  v === undefined ? undefined : Array.isArray(v) ? v.join(', ') : String(v);

/**
 * Records every authenticated request in the request log. The hooks only keep references: the
 * redaction, capping and the batched insert happen later, off the request's path, and a failure
 * there never reaches the caller.
 */
export const requestLogPlugin = fp(async (app: FastifyInstance, opts: { requestLog: RequestLogService }) => {
  const { requestLog } = opts;
  app.addHook('onClose', async () => requestLog.flush());
  requestLog.reportErrorsTo((err) => app.log.error({ err }, 'request log batch not written'));
  if (!requestLog.enabled) return;

  app.addHook('onSend', (request, _reply, payload, done) => {
    if (request.account) responsePayload.set(request, payload);
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    const { account } = request;
    const config = request.routeOptions.config;
    if (!account || config.public || config.unlogged) return done();
    try {
      requestLog.record({
        at: new Date(Date.now() - reply.elapsedTime),
        keyId: account.keyId,
        customerNrs: [...account.customerNrs],
        scopes: [...account.scopes],
        credential: bearerCredential(request.headers.authorization),
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        durationMs: reply.elapsedTime,
        requestId: request.id,
        requestContentType: header(request.headers['content-type']),
        requestBody: bodyAsSent(request),
        responseContentType: header(reply.getHeader('content-type')),
        responseBody: responsePayload.get(request),
      });
    } catch (err) {
      request.log.warn({ err }, 'request not recorded in the request log');
    }
    done();
  });
});

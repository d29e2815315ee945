import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyInstance } from 'fastify';
import { DomainError } from '../lib/errors';
import { allViolations } from './domain-rules';
import { isDatabaseUnavailable, isStatementCancelled } from './faults';
import { sendDomainError, sendProblem } from './problem';
import { validationErrors } from './validation';

/** Fastify's own client errors, by code, as problem answers. */
const FRAMEWORK_ERRORS: Record<string, { status: number; field?: string; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    message: 'The content type is not supported; send application/json.',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: 'The request body is larger than the server accepts.' },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    field: 'request',
    message: 'The request body is not valid JSON.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    field: 'request',
    message: 'The Content-Length does not match the body.',
  },
};

/** `Retry-After` of a 503 while the database is unreachable, in seconds. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** How much of a refused body is read and dropped before answering, at most. */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
const DRAIN_MAX_MS = 10_000;

/**
 * Reads and drops the rest of a refused request body, so that a client that writes its whole body
 * before it reads gets the answer instead of a broken pipe or a reset (closing a socket with unread
 * data makes the kernel reset it). Bounded in bytes and time: past either, the answer goes at once.
 */
export function afterBodyDrained(raw: IncomingMessage): Promise<void> {
  if (raw.complete || raw.readableEnded || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const finish = () => {
      clearTimeout(timer);
      raw.off('data', onData).off('end', finish).off('close', finish).off('error', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_MAX_BYTES) finish();
    };
    const timer = setTimeout(finish, DRAIN_MAX_MS);
    raw.on('data', onData).on('end', finish).on('close', finish).on('error', finish);
    raw.resume();
  });
}

/**
 * Every failure becomes a problem answer: validation (400 with every violated field), framework
 * client errors (400/413/415), domain errors (their mapped status) and anything unexpected (500
 * with the trace id only; the details go to the log, never to the caller).
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.validation) {
      const errors = validationErrors(error.validation as never, error.validationContext);
      const part = error.validationContext;
      if (part !== 'body' && part !== 'querystring') return sendProblem(reply, 400, { errors });
      return allViolations(request, part, errors, error.validation as never).then((all) =>
        sendProblem(reply, 400, { errors: all }),
      );
    }
    if (error instanceof DomainError) return sendDomainError(reply, error);
    const known = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
    if (known?.status === 413) {
      return afterBodyDrained(request.raw).then(() => sendProblem(reply, 413, { detail: known.message }));
    }
    if (known) {
      return known.field
        ? sendProblem(reply, known.status, { errors: { [known.field]: [known.message] } })
        : sendProblem(reply, known.status, { detail: known.message });
    }
    if (error instanceof SyntaxError && error.statusCode === 400) {
      return sendProblem(reply, 400, { errors: { request: ['The request body is not valid JSON.'] } });
    }
    if (request.raw.errored === error) {
      // The client closed its connection before its body had arrived (Node's `aborted`, with the
      // socket's ECONNRESET): its own doing, no outage and no fault here; nobody reads the answer.
      request.log.info({ err: error }, 'client closed the connection mid-request');
      return sendProblem(reply, 400, { detail: 'The request body did not arrive whole.' });
    }
    if (isDatabaseUnavailable(error)) {
      // An outage, not a bug: the client may try again (CONTRACT §4).
      request.log.warn({ err: error }, 'database unavailable');
      reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
      return sendProblem(reply, 503, { detail: 'The database is not reachable; try again shortly.' });
    }
    if (isStatementCancelled(error)) {
      request.log.warn({ err: error }, 'database statement cancelled (statement timeout)');
      reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
      return sendProblem(reply, 503, { detail: 'The database did not answer in time; try again shortly.' });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return sendProblem(reply, status, { detail: error.message });
    }
    if (status === 503)
      return sendProblem(reply, 503, { detail: 'The server is overloaded; try again shortly.' });
    request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, 500);
  });

  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, 404, { detail: `No operation ${request.method} ${request.url.split('?')[0]}.` }),
  );
}

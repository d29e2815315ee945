import type { FastifyError, FastifyInstance } from 'fastify';
import { DomainError } from '../lib/errors';
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
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, field: 'request', message: 'The request body is empty.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    field: 'request',
    message: 'The Content-Length does not match the body.',
  },
};

/**
 * Every failure becomes a problem answer: validation (400 with every violated field), framework
 * client errors (400/413/415), domain errors (their mapped status) and anything unexpected (500
 * with the trace id only; the details go to the log, never to the caller).
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.validation) {
      return sendProblem(reply, 400, {
        errors: validationErrors(error.validation as never, error.validationContext),
      });
    }
    if (error instanceof DomainError) return sendDomainError(reply, error);
    const known = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
    if (known) {
      return known.field
        ? sendProblem(reply, known.status, { errors: { [known.field]: [known.message] } })
        : sendProblem(reply, known.status, { detail: known.message });
    }
    if (error instanceof SyntaxError && error.statusCode === 400) {
      return sendProblem(reply, 400, { errors: { request: ['The request body is not valid JSON.'] } });
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

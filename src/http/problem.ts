import type { FastifyReply, FastifyRequest } from 'fastify';
import { type DomainError, type DomainErrorKind, ValidationFailed } from '../lib/errors';

/**
 * Problem details (RFC 9457) in the shape of the spec's 400 body, which is ASP.NET Core's
 * `ValidationProblemDetails`: `state` is the spec's name for the status, `status` is added for
 * RFC 9457 clients, and `traceId` is the request id.
 */
export interface Problem {
  type: string;
  title: string;
  state: number;
  status: number;
  traceId: string | null;
  detail?: string;
  errors?: Record<string, string[]>;
}

const TYPES: Record<number, string> = {
  400: 'https://tools.ietf.org/html/rfc7231#section-6.5.1',
  404: 'https://tools.ietf.org/html/rfc7231#section-6.5.4',
  405: 'https://tools.ietf.org/html/rfc7231#section-6.5.5',
  409: 'https://tools.ietf.org/html/rfc7231#section-6.5.8',
  412: 'https://tools.ietf.org/html/rfc7232#section-4.2',
  413: 'https://tools.ietf.org/html/rfc7231#section-6.5.11',
  415: 'https://tools.ietf.org/html/rfc7231#section-6.5.13',
  422: 'https://tools.ietf.org/html/rfc4918#section-11.2',
  429: 'https://tools.ietf.org/html/rfc6585#section-4',
  500: 'https://tools.ietf.org/html/rfc7231#section-6.6.1',
  503: 'https://tools.ietf.org/html/rfc7231#section-6.6.4',
};

const TITLES: Record<number, string> = {
  400: 'One or more validation errors occurred.',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'An error occurred while processing your request.',
  503: 'Service Unavailable',
};

/** HTTP status of each kind of domain error: the one place where domain meets HTTP. */
export const STATUS_OF: Record<DomainErrorKind, number> = {
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition_failed: 412,
  unprocessable: 422,
};

export function problem(
  status: number,
  traceId: string,
  extra: { detail?: string; errors?: Record<string, string[]>; title?: string } = {},
): Problem {
  const body: Problem = {
    type: TYPES[status] ?? `https://httpstatuses.io/${status}`,
    title: extra.title ?? TITLES[status] ?? 'Error',
    state: status,
    status,
    traceId,
  };
  if (extra.detail !== undefined) body.detail = extra.detail;
  if (extra.errors !== undefined) body.errors = extra.errors;
  return body;
}

export function sendProblem(
  reply: FastifyReply,
  status: number,
  extra: Parameters<typeof problem>[2] = {},
): FastifyReply {
  return reply
    .code(status)
    .type('application/problem+json; charset=utf-8')
    .serializer(JSON.stringify)
    .send(problem(status, reply.request.id, extra));
}

/** 401 and 403 are plain text on every endpoint, as the spec shows for the webhook read. */
export function sendPlain(reply: FastifyReply, status: 401 | 403, text: string): FastifyReply {
  if (status === 401) reply.header('www-authenticate', 'Bearer realm="kolli"');
  return reply.code(status).type('text/plain; charset=utf-8').serializer(String).send(text);
}

/** Sends a domain error as the matching HTTP answer. */
export function sendDomainError(reply: FastifyReply, error: DomainError): FastifyReply {
  const status = STATUS_OF[error.kind];
  if (status === 401 || status === 403) return sendPlain(reply, status, error.message);
  if (error instanceof ValidationFailed) return sendProblem(reply, 400, { errors: error.errors });
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  return sendProblem(reply, status, { detail: error.message });
}

export type { FastifyRequest };

import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Fastify's `genReqId`: the caller's `X-Request-Id` when it is sane, so traces join up across
 * services, else a new UUID. The id is logged with every line of the request, answered as
 * `X-Request-Id` and is the `traceId` of a problem (CONTRACT §4).
 */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

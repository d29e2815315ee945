import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { problem } from './problem';

interface Refusal {
  status: number;
  reason: string;
  detail: string;
}

/** Anything Node's HTTP parser refuses without a status of its own. */
const BAD_REQUEST: Refusal = {
  status: 400,
  reason: 'Bad Request',
  detail: 'The request is not valid HTTP/1.1.',
};

/** What Node's HTTP parser refuses with a status of its own. */
const KNOWN: Record<string, Refusal> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    detail: 'The request line and headers together may be at most 16 KB.',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    detail: 'The request was not complete within the request timeout.',
  },
};

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refused before Fastify saw it (a
 * byte not allowed in the path, two `Content-Length`s, a bad chunk size, headers over 16 KB) is
 * answered as a problem like every other error (CONTRACT §4), with a trace id in the body and in
 * `X-Request-Id`. The connection then closes: the parser cannot find where the next request starts.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // An answer already on its way on this connection (a pipelined request behind it, a body still
  // arriving after the route answered) must not get a second one written into it: only close.
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !answering?.headersSent) {
    const { status, reason, detail } = (err.code && KNOWN[err.code]) || BAD_REQUEST;
    const traceId = randomUUID();
    const body = JSON.stringify(problem(status, traceId, { title: reason, detail }));
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\n` +
        'Connection: close\r\n' +
        'Content-Type: application/problem+json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${traceId}\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

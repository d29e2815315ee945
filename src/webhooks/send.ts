import http from 'node:http';
import https from 'node:https';

/** Response bytes kept from a target; the rest is not read. */
export const MAX_RESPONSE_BYTES = 4096;

export interface SendResult {
  statusCode: number | null;
  /** Connection error, timeout or refusal by the address guard; null when a response came. */
  error: string | null;
  responseBody: string | null;
  /** The target's Retry-After, in milliseconds from now, when it sent a usable one. */
  retryAfterMs: number | null;
  durationMs: number;
}

export interface SendOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  agents: { http: http.Agent; https: https.Agent };
  now: () => Date;
}

/**
 * A target's answer as text that can be stored: PostgreSQL refuses NUL in text, and an attempt
 * that cannot be recorded would be sent again forever, holding back the webhook's later events.
 */
export const storableAnswer = (bytes: Buffer): string | null =>
  bytes.toString('utf8').slice(0, MAX_RESPONSE_BYTES).replaceAll('\0', '\uFFFD') || null;

/** `Retry-After` as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/**
 * One POST to a webhook target. Redirects are not followed (Node's http client never does), the
 * whole exchange is bounded by `timeoutMs`, and at most 4 KB of the response body is read.
 * Never throws: failures come back as `error`.
 */
export function send(options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const fail = (error: string) =>
      finish({ statusCode: null, error, responseBody: null, retryAfterMs: null });

    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      fail('invalid url');
      return;
    }
    const isHttps = url.protocol === 'https:';
    let request: http.ClientRequest;
    try {
      request = (isHttps ? https : http).request(url, {
        method: 'POST',
        agent: isHttps ? options.agents.https : options.agents.http,
        headers: { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) },
      });
    } catch (err) {
      // Node refuses some header names and values synchronously (ERR_INVALID_CHAR and the like).
      fail(err instanceof Error ? err.message : 'invalid request');
      return;
    }
    timer = setTimeout(() => {
      fail(`timeout after ${options.timeoutMs} ms`);
      request.destroy();
    }, options.timeoutMs);

    request.on('error', (err) => fail(err.message || 'connection error'));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () =>
        finish({
          statusCode: response.statusCode ?? null,
          error: null,
          responseBody: storableAnswer(Buffer.concat(chunks)),
          retryAfterMs: parseRetryAfter(response.headers['retry-after'], options.now()),
        });
      response.on('data', (chunk: Buffer) => {
        const room = MAX_RESPONSE_BYTES - size;
        if (room > 0) chunks.push(chunk.subarray(0, room));
        size += chunk.length;
        if (size >= MAX_RESPONSE_BYTES) {
          // Enough read; drop the rest (and the connection) rather than buffer a large answer.
          done();
          response.destroy();
        }
      });
      response.on('end', done);
      response.on('error', () => done());
      response.on('close', done);
    });
    request.end(options.body);
  });
}

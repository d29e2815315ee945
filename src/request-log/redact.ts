/**
 * Redaction of what the request log stores. It runs before a row is written, never after: secrets
 * (credentials, API key values, tokens, webhook secrets) must not reach the table at all.
 */

import { REDACTED } from '../http/logging';

/**
 * Property and query-parameter names whose values are secrets, whatever their case. Wider than the
 * server log's exact names (`SECRET_NAMES` in http/logging.ts): stored bodies are the client's own.
 */
const SECRET_NAME = /^key$|secret|passw(or)?d|token|api[-_]?key|authorization|cookie/i;

/** A bearer or basic credential written into a text value. */
const CREDENTIAL_IN_TEXT = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;

const isSecretName = (name: string) => SECRET_NAME.test(name);

function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = isSecretName(k) ? REDACTED : redactValue(v);
    return out;
  }
  if (typeof value === 'string') {
    // A JSON object inside a string (a webhook's customHeaders) has its secrets too.
    if (/^\s*\{/.test(value)) {
      try {
        return JSON.stringify(redactValue(JSON.parse(value)));
      } catch {
        // Not JSON: redacted as text.
      }
    }
    return value.replace(CREDENTIAL_IN_TEXT, `$1 ${REDACTED}`);
  }
  return value;
}

/** Every known secret value (the caller's own credential) replaced wherever it appears. */
function redactKnown(text: string, known: readonly string[]): string {
  let out = text;
  for (const secret of known) if (secret.length >= 8) out = out.split(secret).join(REDACTED);
  return out;
}

/** Cuts text longer than `maxBytes` (UTF-8), saying how much was left out. */
export function cap(text: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return text;
  const cut = Buffer.from(text)
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${cut}…[truncated, ${bytes} bytes in all]`;
}

/** The path and query with secret query parameters' values redacted. */
export function redactUrl(url: string, known: readonly string[]): string {
  const q = url.indexOf('?');
  if (q < 0) return redactKnown(url, known);
  const params = new URLSearchParams(url.slice(q + 1));
  for (const name of new Set(params.keys())) if (isSecretName(name)) params.set(name, REDACTED);
  return redactKnown(`${url.slice(0, q)}?${params.toString()}`, known);
}

const TEXTUAL = /^(application\/([a-z.+-]*\+)?(json|xml|x-www-form-urlencoded|problem\+json)|text\/)/i;

/**
 * A body as stored: a parsed body (object) or a payload (string/Buffer), redacted, then capped.
 * Binary payloads (a label PDF) are described, not stored.
 */
export function storedBody(
  body: unknown,
  contentType: string | undefined,
  known: readonly string[],
  maxBytes: number,
): string | null {
  if (body === undefined || body === null || body === '') return null;
  if (Buffer.isBuffer(body) || body instanceof Uint8Array) {
    if (!TEXTUAL.test(contentType ?? '')) return `[${contentType ?? 'binary'}, ${body.byteLength} bytes]`;
    return storedBody(Buffer.from(body).toString('utf8'), contentType, known, maxBytes);
  }
  if (typeof body === 'object') {
    if (typeof (body as { pipe?: unknown }).pipe === 'function') return `[${contentType ?? 'stream'}]`;
    return cap(redactKnown(JSON.stringify(redactValue(body)), known), maxBytes);
  }
  const text = String(body);
  if (/json/i.test(contentType ?? '') || /^\s*[[{]/.test(text)) {
    try {
      return storedBody(JSON.parse(text) as object, contentType, known, maxBytes);
    } catch {
      // Not JSON after all: redacted as text below.
    }
  }
  if (/x-www-form-urlencoded/i.test(contentType ?? '')) {
    return cap(redactUrl(`?${text}`, known).slice(1), maxBytes);
  }
  return cap(redactKnown(text.replace(CREDENTIAL_IN_TEXT, `$1 ${REDACTED}`), known), maxBytes);
}

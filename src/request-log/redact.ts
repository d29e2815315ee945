/**
 * Redaction of what the request log stores. It runs before a row is written, never after: secrets
 * (credentials, API key values, tokens, webhook secrets) must not reach the table at all.
 */

import { MAX_JSON_DEPTH } from '../http/json-body';
// Names of secrets (`SECRET_NAME`): wider than the server log's exact property names
// (`SECRET_NAMES` in http/logging.ts), as stored bodies are the client's own.
import { REDACTED, SECRET_NAME } from '../http/logging';

/** A bearer or basic credential written into a text value. */
const CREDENTIAL_IN_TEXT = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;

/** What stands for an object or array nested deeper than a JSON body may be (JSON text inside a string can be). */
const TOO_DEEP = `[nested deeper than ${MAX_JSON_DEPTH} levels]`;

const isSecretName = (name: string) => SECRET_NAME.test(name);

/**
 * A webhook's custom headers exist to carry the target's credentials, under any name
 * (`Ocp-Apim-Subscription-Key`, `X-Auth`…): every value is a secret, the names stay readable.
 */
const HEADER_MAP = /^customheaders$/i;

function redactHeaderValues(value: unknown): unknown {
  if (value === null) return null;
  let map = value;
  if (typeof value === 'string') {
    try {
      map = JSON.parse(value);
    } catch {
      return REDACTED;
    }
  }
  if (map === null || typeof map !== 'object' || Array.isArray(map)) return REDACTED;
  const names = Object.fromEntries(Object.keys(map).map((name) => [name, REDACTED]));
  return typeof value === 'string' ? JSON.stringify(names) : names;
}

const redactText = (text: string) => text.replace(CREDENTIAL_IN_TEXT, `$1 ${REDACTED}`);

/**
 * The value with its secrets replaced. JSON text inside a string value is parsed and walked as part
 * of the body, and the walk stops at the body's own depth limit: nothing else bounds that text, and
 * V8 aborts the whole process (it cannot be caught) when a regular expression compiles on a nearly
 * exhausted stack.
 */
function redactValue(value: unknown, depth = 0): unknown {
  if (value !== null && typeof value === 'object' && depth >= MAX_JSON_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[k] = isSecretName(k)
        ? REDACTED
        : HEADER_MAP.test(k)
          ? redactHeaderValues(v)
          : redactValue(v, depth + 1);
    return out;
  }
  if (typeof value === 'string') {
    // A JSON object inside a string (a webhook's customHeaders) has its secrets too.
    if (/^\s*\{/.test(value)) {
      try {
        return JSON.stringify(redactValue(JSON.parse(value), depth));
      } catch {
        // Not JSON: redacted as text.
      }
    }
    return redactText(value);
  }
  return value;
}

/**
 * A problem answer redacted, but for its `errors`: the server's messages under the names of the
 * fields they are about, which a name such as `secret` or `customHeaders` must not hide (the
 * messages name a field or a header, never a value of one). Credentials written in text still go.
 */
function redactProblem(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return redactValue(value);
  const { errors, ...rest } = value as Record<string, unknown>;
  const out = redactValue(rest) as Record<string, unknown>;
  if (errors === null || typeof errors !== 'object' || Array.isArray(errors)) {
    return errors === undefined ? out : { ...out, errors: redactValue(errors) };
  }
  const messages = (m: unknown) =>
    Array.isArray(m)
      ? m.map((t) => (typeof t === 'string' ? redactText(t) : redactValue(t)))
      : redactValue(m);
  return {
    ...out,
    errors: Object.fromEntries(Object.entries(errors).map(([field, m]) => [field, messages(m)])),
  };
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
 * Binary payloads (a label PDF) are described, not stored. Text is parsed once: only an object or
 * array is walked, and a JSON scalar (`1`, `true`, a string) is stored as text.
 */
export function storedBody(
  body: unknown,
  contentType: string | undefined,
  known: readonly string[],
  maxBytes: number,
): string | null {
  if (body === undefined || body === null || body === '') return null;
  const stored = (text: string) => cap(redactKnown(text, known), maxBytes);
  const redact = /problem\+json/i.test(contentType ?? '') ? redactProblem : redactValue;
  if (typeof body === 'object' && !(body instanceof Uint8Array)) {
    if (typeof (body as { pipe?: unknown }).pipe === 'function') return `[${contentType ?? 'stream'}]`;
    return stored(JSON.stringify(redact(body)));
  }
  if (body instanceof Uint8Array && !TEXTUAL.test(contentType ?? '')) {
    return `[${contentType ?? 'binary'}, ${body.byteLength} bytes]`;
  }
  const text = body instanceof Uint8Array ? Buffer.from(body).toString('utf8') : String(body);
  if (/json/i.test(contentType ?? '') || /^\s*[[{]/.test(text)) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed !== null && typeof parsed === 'object') return stored(JSON.stringify(redact(parsed)));
    } catch {
      // Not JSON after all: redacted as text below.
    }
  }
  if (/x-www-form-urlencoded/i.test(contentType ?? ''))
    return cap(redactUrl(`?${text}`, known).slice(1), maxBytes);
  return stored(redactText(text));
}

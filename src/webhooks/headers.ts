/** Header names a registration may not set: the transport's own, and every Standard Webhooks one. */
export const RESERVED_HEADERS: readonly string[] = [
  'host',
  'content-type',
  'content-length',
  'connection',
  'transfer-encoding',
  // The body is plain JSON: a content coding would make the receiver decode it, and fail.
  'content-encoding',
  'user-agent',
  // Hop-by-hop headers (RFC 9110 §7.6.1) would change how the request travels, not what it says.
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-connection',
  'proxy-authorization',
];

export const MAX_CUSTOM_HEADERS = 20;
export const MAX_HEADER_VALUE_LENGTH = 1024;

// RFC 9110 token characters; Node refuses anything else in a header name.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Visible ASCII, space, tab and obs-text, as Node's http client accepts; no CR, LF or NUL.
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export type CustomHeadersResult =
  | { ok: true /** The normalised JSON text to store, or null when none. */; text: string | null }
  | { ok: false; problems: string[] };

const MUST = 'The customHeaders field must be a JSON object of header names and string values';

/**
 * Checks a registration's `customHeaders`: a JSON object serialised as a string (the spec's record)
 * or, as a convenience, the object itself; every value a string that is a valid header value, every
 * name a valid header name that is not reserved, no name twice (names are case-insensitive).
 */
export function checkCustomHeaders(input: unknown): CustomHeadersResult {
  if (input === undefined || input === null || (typeof input === 'string' && input.trim() === '')) {
    return { ok: true, text: null };
  }
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch {
      return { ok: false, problems: [`${MUST}, serialised as a string; it is not valid JSON.`] };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problems: [`${MUST}, such as "{\\"X-Api-Key\\": \\"abc\\"}".`] };
  }
  const entries = Object.entries(value as Record<string, unknown>);
  const problems: string[] = [];
  if (entries.length > MAX_CUSTOM_HEADERS) {
    problems.push(`The customHeaders field may hold at most ${MAX_CUSTOM_HEADERS} headers.`);
  }
  const seen = new Set<string>();
  for (const [name, v] of entries) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) {
      problems.push(`The customHeaders name '${name}' is not a valid HTTP header name.`);
    } else if (RESERVED_HEADERS.includes(lower) || lower.startsWith('webhook-')) {
      problems.push(`The customHeaders name '${name}' is reserved and may not be set.`);
    } else if (seen.has(lower)) {
      problems.push(`The customHeaders name '${name}' is given more than once.`);
    }
    seen.add(lower);
    if (typeof v !== 'string') {
      problems.push(`The customHeaders value of '${name}' must be a string.`);
    } else if (!VALUE.test(v)) {
      problems.push(
        `The customHeaders value of '${name}' must not contain line breaks or control characters.`,
      );
    } else if (v.length > MAX_HEADER_VALUE_LENGTH) {
      problems.push(
        `The customHeaders value of '${name}' must be at most ${MAX_HEADER_VALUE_LENGTH} characters long.`,
      );
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, text: entries.length === 0 ? null : JSON.stringify(Object.fromEntries(entries)) };
}

import { isUtf8 } from 'node:buffer';

/**
 * The text checks of every request's input, beside its binding (`binding.ts`): text PostgreSQL cannot
 * store, and query parameters whose percent-escapes are not UTF-8, found up front and answered as a
 * 400 naming the field instead of a 500 from the database.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Every character `textProblem` may object to; text without any (nearly all) needs no closer look. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is one of the characters looked for.
const SUSPECT = /[\u0000\uD800-\uDFFF\uFFFD]/;

/**
 * Why a string cannot be stored as text, or null when it can: PostgreSQL refuses NUL in text, and a
 * lone UTF-16 surrogate (`"\ud800"` in JSON) is no character at all (its UTF-8 form is refused by
 * PostgreSQL's JSON and re-encoded silently elsewhere). With `replaced`, U+FFFD marks bytes that were
 * not UTF-8 in the raw body.
 */
function textProblem(s: string, replaced: boolean): string | null {
  if (!SUSPECT.test(s)) return null;
  if (s.includes('\u0000')) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(s)) return 'must not contain an unpaired UTF-16 surrogate';
  if (replaced && s.includes('\ufffd')) return 'must be valid UTF-8 text';
  return null;
}

/** True when any string (or property name) in the value has a `textProblem`; no allocation. */
export function holdsBadText(value: unknown, replaced: boolean): boolean {
  if (typeof value === 'string') return textProblem(value, replaced) !== null;
  if (Array.isArray(value)) {
    for (const v of value) if (holdsBadText(v, replaced)) return true;
    return false;
  }
  if (value && typeof value === 'object') {
    for (const k in value) {
      if (textProblem(k, replaced) !== null) return true;
      if (holdsBadText((value as Record<string, unknown>)[k], replaced)) return true;
    }
  }
  return false;
}

const leafOf = (path: string) => /([^.[\]]+)\]?$/.exec(path)?.[1] ?? path;

/**
 * Every field (`Parcels[2].ParcelId`) whose string holds text that cannot be stored (`textProblem`),
 * with the message for it. Such input is refused up front as a 400 instead of failing in the
 * database as a 500. `replaced` says the body was not valid UTF-8 (U+FFFD marks the bad bytes).
 */
export function badTextFields(value: unknown, replaced = false, path = ''): [string, string][] {
  if (!holdsBadText(value, replaced)) return [];
  if (typeof value === 'string') {
    const field = path || 'request';
    return [[field, `The ${leafOf(field)} field ${textProblem(value, replaced)}.`]];
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => badTextFields(v, replaced, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => {
      const field = path ? `${path}.${k}` : k;
      const keyProblem = textProblem(k, replaced);
      if (keyProblem) return [[path || 'request', `A property name ${keyProblem}.`] as [string, string]];
      return badTextFields(v, replaced, field);
    });
  }
  return [];
}

const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g;

/** True when percent-escapes in the text spell bytes that are not UTF-8 (`%ED%A0%80`, a surrogate). */
function percentEscapesNotUtf8(text: string): boolean {
  for (const run of text.match(PERCENT_RUN) ?? []) {
    if (!isUtf8(Buffer.from(run.replace(/%/g, ''), 'hex'))) return true;
  }
  return false;
}

/** A query parameter's name as written (`+` a space, percent-escapes decoded), or as sent when undecodable. */
export const decodeName = (raw: string) => {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
};

/** False when the URL's query holds no percent-escape, so no parameter can be undecodable. */
export const mayHoldNonUtf8Query = (url: string): boolean => {
  const q = url.indexOf('?');
  return q >= 0 && url.indexOf('%', q) >= 0;
};

/**
 * The names of query parameters whose percent-escaped name or value is not UTF-8. The query parser
 * keeps such a value as its raw escapes, which would then pass for ASCII text; this reads the raw
 * query string instead, so a literal `%E9` sent as `%25E9` is not mistaken for one.
 */
export function queryNamesNotUtf8(url: string): string[] {
  if (!mayHoldNonUtf8Query(url)) return [];
  const q = url.indexOf('?');
  const names: string[] = [];
  for (const pair of url.slice(q + 1).split('&')) {
    if (!percentEscapesNotUtf8(pair)) continue;
    const eq = pair.indexOf('=');
    names.push(decodeName(eq < 0 ? pair : pair.slice(0, eq)));
  }
  return names;
}

import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationFailed } from '../lib/errors';

/** The deepest nesting of arrays and objects a JSON body may have (CONTRACT §4). */
export const MAX_JSON_DEPTH = 64;

/**
 * The JSON media types (CONTRACT §2): `application/json`, `text/json` and `application/*+json`, with
 * any parameters. Fastify matches a RegExp parser against the whole Content-Type value.
 */
const JSON_MEDIA_TYPE = /^\s*(?:application\/(?:[\w.+-]+\+)?json|text\/json)\s*(?:;|$)/i;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/**
 * True when the JSON text nests arrays and objects deeper than `limit`. It reads the raw bytes once,
 * skipping strings, and stops at the first level too deep, so a hostile body never becomes a tree
 * (whose walk would overflow the stack) nor costs more than one pass. Malformed JSON is left to the
 * parser: this only counts brackets.
 */
export function nestedDeeperThan(body: Uint8Array, limit: number): boolean {
  if (body.length <= limit) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

/** Requests whose body was not valid UTF-8: its undecodable bytes became U+FFFD (see `badTextFields`). */
const invalidUtf8Bodies = new WeakSet<object>();

/** True when the request's body held bytes that are not UTF-8 (a raw surrogate, a stray byte). */
export const bodyWasInvalidUtf8 = (request: FastifyRequest): boolean => invalidUtf8Bodies.has(request);

/**
 * Replaces Fastify's JSON parser with one for every JSON media type that refuses JSON nested deeper
 * than 64 levels while reading the bytes, and remembers bodies that are not valid UTF-8 so the
 * binding layer can name the fields that held the bad bytes. Parsing itself is Fastify's own
 * (secure-json-parse, refusing `__proto__` and `constructor.prototype`). `text/plain` is no longer
 * read, so a body in it is a 415 like any other content type that is not JSON or a form.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(JSON_MEDIA_TYPE, { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (nestedDeeperThan(bytes, MAX_JSON_DEPTH)) {
      done(
        new ValidationFailed({
          request: [`The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`],
        }),
        undefined,
      );
      return;
    }
    if (!isUtf8(bytes)) invalidUtf8Bodies.add(request);
    parse(request, bytes.toString('utf8'), done);
  });
}

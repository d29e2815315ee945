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

const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const MINUS = 0x2d;

/** More digits in a row than this may be an integer a double cannot hold (2^53 has 16). */
const SAFE_DIGITS = 15;

/**
 * What one pass over a JSON body's raw bytes finds outside its strings: nesting deeper than `limit`
 * (it stops there, so a hostile body never becomes a tree whose walk would overflow the stack, nor
 * costs more than one pass), and a run of more than 15 digits, a number `JSON.parse` may round.
 * Malformed JSON is left to the parser: this only counts brackets and digits.
 */
export function scanJson(body: Uint8Array, limit: number): { tooDeep: boolean; longNumber: boolean } {
  let depth = 0;
  let longNumber = false;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? 0;
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c >= DIGIT_0 && c <= DIGIT_9) {
      let end = i + 1;
      for (let d = body[end]; d !== undefined && d >= DIGIT_0 && d <= DIGIT_9; d = body[++end]);
      if (end - i > SAFE_DIGITS) longNumber = true;
      i = end - 1;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > limit) return { tooDeep: true, longNumber };
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return { tooDeep: false, longNumber };
}

/** A JSON number (RFC 8259: no leading zeros), and what may follow a value: not a digit, not a `:`. */
const NUMBER_TOKEN = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\d.eE])(?!\s*:)/y;
const INTEGER = /^-?\d+$/;
const DIGITS = /-?\d+/y;

/**
 * The JSON text with every integer a double cannot hold exactly written as a string of its digits,
 * so that a 17-digit `ShipmentId` sent as a number keeps its digits (CONTRACT §2: a number where a
 * string is typed is read as its decimal digits). Where a number is typed, the binder reads the
 * string back as the same number `JSON.parse` would have made. Strings and other numbers are left.
 */
export function quoteUnsafeIntegers(text: string): string {
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      NUMBER_TOKEN.lastIndex = i;
      const token = NUMBER_TOKEN.exec(text)?.[0];
      if (token && INTEGER.test(token) && !Number.isSafeInteger(Number(token))) {
        out += `${text.slice(from, i)}"${token}"`;
        from = i + token.length;
      }
      // Past the whole run of digits, also where it is no JSON number (the parser refuses it).
      DIGITS.lastIndex = i;
      i += Math.max(token?.length ?? 0, DIGITS.exec(text)?.[0].length ?? 1) - 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Requests whose body was not valid UTF-8: its undecodable bytes became U+FFFD (see `badTextFields`). */
const invalidUtf8Bodies = new WeakSet<object>();

/** True when the request's body held bytes that are not UTF-8 (a raw surrogate, a stray byte). */
export const bodyWasInvalidUtf8 = (request: FastifyRequest): boolean => invalidUtf8Bodies.has(request);

/**
 * Replaces Fastify's JSON parser with one for every JSON media type that refuses JSON nested deeper
 * than 64 levels while reading the bytes, keeps the digits of integers a double cannot hold, and
 * remembers bodies that are not valid UTF-8 so the
 * binding layer can name the fields that held the bad bytes. Parsing itself is Fastify's own
 * (secure-json-parse, refusing `__proto__` and `constructor.prototype`). `text/plain` is no longer
 * read, so a body in it is a 415 like any other content type that is not JSON or a form.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(JSON_MEDIA_TYPE, { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    // No body, whatever its label says: clients (HttpClient with default headers, some SDKs) send a
    // JSON Content-Type on every request, a DELETE too. A route that needs a body names it missing.
    if (bytes.length === 0) {
      done(null, undefined);
      return;
    }
    const { tooDeep, longNumber } = scanJson(bytes, MAX_JSON_DEPTH);
    if (tooDeep) {
      done(
        new ValidationFailed({
          request: [`The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`],
        }),
        undefined,
      );
      return;
    }
    if (!isUtf8(bytes)) invalidUtf8Bodies.add(request);
    const text = bytes.toString('utf8');
    parse(request, longNumber ? quoteUnsafeIntegers(text) : text, done);
  });
}

/**
 * Refuses a request body sent with a content coding (`Content-Encoding: gzip`): Kolli reads bodies
 * as sent, so a compressed one was read as broken JSON, and JSON merely labelled gzip was read as
 * if it were none. RFC 9110 §15.5.16: an unsupported content coding is a 415.
 */
export function refuseEncodedBodies(app: FastifyInstance): void {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const coding = request.headers['content-encoding']?.trim().toLowerCase();
    if (!coding || coding === 'identity') return done(null, payload);
    done(
      Object.assign(new Error(`Content-Encoding ${coding} is not supported: send the body uncompressed.`), {
        statusCode: 415,
      }),
    );
  });
}

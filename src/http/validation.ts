import type { ErrorObject } from 'ajv';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Two validators: request bodies are JSON and keep their types (a string where a number belongs is
 * an error), while query strings and paths are text and are coerced (`?weight=12` is a number, and a
 * single `?service=16` is a list of one).
 */
function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    verbose: true,
    // Ajv's optimiser counts the generated code's variable names in objects keyed by name (err103,
    // valid12, …), one V8 transition each off the empty object's hidden class. Kolli's schemas made
    // more than V8 keeps (1 536): until the first full collection, every object built property by
    // property (each request's headers) then got a hidden class of its own, and a request cost
    // 19–41 % more CPU for the first ~20 s of load (bench/README.md). Unoptimised validators run as fast.
    code: { optimize: false },
  });
  addFormats.default(ajv);
  return ajv;
}

export const bodyAjv = makeAjv(false);
export const textAjv = makeAjv(true);

type Schema = Record<string, unknown>;

const unescapePointer = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');

/** `/Parcels/3/Weight` → `Parcels[3].Weight`. */
export function fieldName(segments: string[]): string {
  let name = '';
  for (const s of segments) {
    if (/^\d+$/.test(s)) name += `[${s}]`;
    else name += name ? `.${s}` : s;
  }
  return name;
}

const TYPE_WORDS: Record<string, string> = {
  number: 'a number',
  integer: 'an integer',
  string: 'a string',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  null: 'null',
};

function describeType(t: unknown): string {
  const list = Array.isArray(t) ? t : [t];
  return list.map((x) => TYPE_WORDS[String(x)] ?? String(x)).join(' or ');
}

function message(e: ErrorObject, leaf: string): string {
  const custom = (e.parentSchema as Schema | undefined)?.['x-error'];
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `The ${leaf} field is required.`;
    case 'type':
      return `The ${leaf} field must be ${describeType(p.type)}.`;
    case 'maximum':
      return `The ${leaf} field must be at most ${p.limit}.`;
    case 'minimum':
      return `The ${leaf} field must be at least ${p.limit}.`;
    case 'exclusiveMinimum':
      return `The ${leaf} field must be greater than ${p.limit}.`;
    case 'exclusiveMaximum':
      return `The ${leaf} field must be less than ${p.limit}.`;
    case 'maxLength':
      return `The ${leaf} field must be at most ${p.limit} characters long.`;
    case 'minLength':
      return p.limit === 1
        ? `The ${leaf} field must not be empty.`
        : `The ${leaf} field must be at least ${p.limit} characters long.`;
    case 'maxItems':
      return `The ${leaf} field must hold at most ${p.limit} items.`;
    case 'minItems':
      return `The ${leaf} field must hold at least ${p.limit} items.`;
    case 'enum':
      return `The ${leaf} field must be one of: ${(p.allowedValues as unknown[]).join(', ')}.`;
    case 'const':
      return `The ${leaf} field must be ${String(p.allowedValue)}.`;
    case 'uniqueItems':
      return `The ${leaf} field lists the same value twice (items ${Math.min(Number(p.i), Number(p.j))} and ${Math.max(Number(p.i), Number(p.j))}).`;
    case 'additionalProperties':
      return `The ${leaf} field is not one this request takes (a misspelt name?).`;
    default:
      if (typeof custom === 'string') return custom;
      if (e.keyword === 'format') return `The ${leaf} field must be a valid ${p.format}.`;
      return `The ${leaf} field ${e.message ?? 'is invalid'}.`;
  }
}

/**
 * Turns Ajv's errors into the spec's `errors` object: keys are the request's field names with
 * array indexes, values every message for that field. Errors inside a failed union collapse into
 * one message for the union.
 */
export function validationErrors(
  errors: ErrorObject[],
  context: string | undefined,
): Record<string, string[]> {
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const inUnion = (e: ErrorObject) =>
    unions.some((u) => u !== e && e.schemaPath.startsWith(u.schemaPath.replace(/\/(anyOf|oneOf)$/, '/')));
  // A Map: names come from the request (`constructor`), not to be looked up on an object.
  const out = new Map<string, string[]>();
  for (const e of errors) {
    if (inUnion(e)) continue;
    const segments = e.instancePath.split('/').slice(1).map(unescapePointer);
    if (e.keyword === 'required')
      segments.push(String((e.params as { missingProperty: string }).missingProperty));
    const leafSegment = [...segments].reverse().find((s) => !/^\d+$/.test(s));
    let name = fieldName(segments) || (context === 'body' || !context ? 'request' : context);
    let leaf = leafSegment ?? name;
    if (e.keyword === 'additionalProperties') {
      // Named by the member that is not declared, as a missing one is; as sent, even when it is
      // empty or digits (`""`, `0`), which as a path segment would read as the object or an index.
      const member = String((e.params as { additionalProperty: string }).additionalProperty);
      leaf = member === '' ? '""' : member;
      name = segments.length > 0 ? `${fieldName(segments)}.${leaf}` : leaf;
    }
    // A query parameter repeated (`customerid=1&customerid=2`, in any spelling) arrives as a list:
    // said so, whatever the one value's schema (a union's own message would mislead too).
    const repeated =
      (context === 'querystring' || context === 'params') &&
      (e.keyword === 'type' || e.keyword === 'anyOf' || e.keyword === 'oneOf') &&
      Array.isArray(e.data);
    const text = repeated
      ? `The ${leaf} field is given more than once; it takes one value.`
      : name === 'request' && e.keyword === 'type'
        ? `The request body must be ${describeType((e.params as { type: unknown }).type)}.`
        : e.keyword === 'anyOf' || e.keyword === 'oneOf'
          ? (((e.parentSchema as Schema | undefined)?.['x-error'] as string | undefined) ??
            `The ${leaf} field has an invalid value.`)
          : message(e, leaf);
    const list = out.get(name) ?? [];
    if (!list.includes(text)) list.push(text);
    out.set(name, list);
  }
  return Object.fromEntries(out);
}

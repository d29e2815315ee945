import type { ErrorObject } from 'ajv';
import type { FastifyRequest } from 'fastify';
import { fieldWithin, ValidationFailed } from '../lib/errors';
import { parseOsloDateTime } from '../lib/oslo-time';
import { OSLO_DATETIME } from './binding';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's domain rules, run on the part of a body that passed the schema, so that a 400 lists
     * schema errors and rule violations together (CONTRACT §4). Answers `errors` keyed by field name,
     * or throws `ValidationFailed` with them. Must write nothing. `refused` names the fields the schema
     * refused (as in `errors`), for a rule that spans several fields and cannot be judged without one.
     */
    domainRules?: (
      request: FastifyRequest,
      body: unknown,
      refused: ReadonlySet<string>,
    ) => Promise<Record<string, string[]>>;
    /** The same for the part of a query string that passed the schema. */
    queryRules?: (
      request: FastifyRequest,
      query: unknown,
      refused: ReadonlySet<string>,
    ) => Promise<Record<string, string[]>>;
  }
}

/**
 * `domainRules` or `queryRules` from a check that reports by throwing `ValidationFailed`, as the
 * operation itself does: run on what the schema accepted, its violations join the schema's.
 */
export const rulesOf =
  <I>(check: (input: I, request: FastifyRequest, refused: ReadonlySet<string>) => unknown) =>
  async (
    request: FastifyRequest,
    input: unknown,
    refused: ReadonlySet<string>,
  ): Promise<Record<string, string[]>> => {
    await check(input as I, request, refused);
    return {};
  };

const unescapePointer = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');

/**
 * A copy of the body without the values the schema refused: each refused value is removed from its
 * object, or replaced by an empty object in its list so that later indexes keep their names.
 */
export function withoutRefused(body: unknown, errors: readonly ErrorObject[]): unknown {
  if (body === null || typeof body !== 'object') return body;
  const copy = structuredClone(body) as Record<string, unknown>;
  for (const e of errors) {
    const path = e.instancePath.split('/').slice(1).map(unescapePointer);
    const last = path.pop();
    if (last === undefined) continue;
    let node: unknown = copy;
    for (const segment of path) {
      node =
        node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[segment] : undefined;
    }
    if (Array.isArray(node)) node[Number(last)] = {};
    else if (node !== null && typeof node === 'object' && Object.hasOwn(node, last))
      delete (node as Record<string, unknown>)[last];
  }
  return copy;
}

/**
 * The schema's errors with the domain rules' violations added, leaving out every rule violation on a
 * field the schema already refused, inside one or holding one: the rule saw that part missing, not
 * as sent.
 */
export function withRuleViolations(
  schema: Record<string, string[]>,
  rules: Record<string, string[]>,
): Record<string, string[]> {
  const refused = Object.keys(schema);
  const out = new Map(Object.entries(schema).map(([k, list]) => [k, [...list]]));
  for (const [field, messages] of Object.entries(rules)) {
    // Inside a refused field, or around one (`Addresses` when `Addresses[1].AddressTypeId` was refused).
    if (refused.some((r) => r === 'request' || fieldWithin(field, r) || fieldWithin(r, field))) continue;
    const list = out.get(field) ?? [];
    for (const m of messages) if (!list.includes(m)) list.push(m);
    out.set(field, list);
  }
  return Object.fromEntries(out);
}

/**
 * The full `errors` of a body or query string the schema refused: its schema errors plus the route's
 * domain rules on what remains. The rules see a partial request, so any failure of theirs (a missing
 * field they assumed, a forbidden payer) only means they add nothing: the schema's errors are answer
 * enough.
 */
export async function allViolations(
  request: FastifyRequest,
  part: 'body' | 'querystring',
  schemaErrors: Record<string, string[]>,
  refused: readonly ErrorObject[],
): Promise<Record<string, string[]>> {
  if ('request' in schemaErrors) return schemaErrors;
  const input = part === 'body' ? request.body : request.query;
  const { domainRules, queryRules } = request.routeOptions.config;
  const rules = part === 'body' ? domainRules : queryRules;
  if (!rules) {
    // Without rules of its own, the route's dates at least (its operation reads them after the schema).
    const schema = (request.routeOptions.schema as Record<string, unknown> | undefined)?.[part];
    return withRuleViolations(schemaErrors, dateViolations(schema, input));
  }
  try {
    const judged = withoutRefused(input, refused);
    return withRuleViolations(schemaErrors, await rules(request, judged, new Set(Object.keys(schemaErrors))));
  } catch (e) {
    // Rules that report by throwing, as the operation itself would.
    if (e instanceof ValidationFailed) return withRuleViolations(schemaErrors, e.errors);
    request.log.debug({ err: e }, 'domain rules skipped on a request the schema refused');
    return schemaErrors;
  }
}

/**
 * The date parameters (`x-oslo-datetime`) of a refused body or query that are no date at all, for a
 * route without domain rules: its operation reads its dates after the schema, so without this a 400
 * for another field would leave a malformed date out. The message is the operations' ("… is not a
 * valid date", or the field's own `x-error`); an empty value is left to the operation (required).
 */
function dateViolations(schema: unknown, input: unknown): Record<string, string[]> {
  const properties = (schema as { properties?: Record<string, Record<string, unknown>> } | undefined)
    ?.properties;
  if (!properties || input === null || typeof input !== 'object') return {};
  const out: Record<string, string[]> = {};
  for (const [name, property] of Object.entries(properties)) {
    const value = (input as Record<string, unknown>)[name];
    if (!property[OSLO_DATETIME] || typeof value !== 'string' || !value.trim() || isDateTimeText(value))
      continue;
    const custom = property['x-error'];
    out[name] = [typeof custom === 'string' ? custom : `The ${name} field is not a valid date.`];
  }
  return out;
}

/**
 * A date or a date-time in any form an operation reads (the binder has already made a zoned one
 * Oslo local time; a space may stand for the `T`), on a real calendar day.
 */
const isDateTimeText = (value: string) => parseOsloDateTime(value.trim().replace(' ', 'T')) !== null;

import type { FastifyError, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { ValidationFailed } from '../lib/errors';
import { compileBinder, compileQueryBinder, compileQueryNames } from './binding';
import { bodyWasInvalidUtf8 } from './json-body';
import { sendProblem } from './problem';
import { asList } from './route-hooks';
import { badTextFields, holdsBadText, mayHoldNonUtf8Query, queryNamesNotUtf8 } from './text-checks';

type Input = { body: unknown; query: unknown; params: unknown; raw: { url?: string } };

/** Each request's body as parsed, before binding renamed its names and dropped undeclared ones. */
const sentBodies = new WeakMap<object, unknown>();

/** The body as the client sent it (parsed JSON or form), for the request log. */
export const bodyAsSent = (request: { body: unknown }): unknown =>
  sentBodies.has(request) ? sentBodies.get(request) : request.body;

/**
 * The `onRoute` hook that prepares every route's input before validation: case-insensitive JSON
 * properties and query parameters and indexed lists in query strings (`binding.ts`), compiled per
 * route, then one check of every string of the body, query and path for text that cannot be stored
 * (NUL, unpaired surrogates, bytes that are not UTF-8), answered as a 400 naming each field.
 */
export function bindRouteInput(route: RouteOptions): void {
  const schema = route.schema as { body?: object; querystring?: object; params?: object } | undefined;
  const bindBody = compileBinder(schema?.body);
  const bindQuery = compileQueryBinder(schema?.querystring);
  const queryName = compileQueryNames(schema?.querystring);
  // A callback hook: it runs on every request, and needs no promise.
  const hook = (request: Input, _reply: unknown, done: (err?: Error) => void) => {
    if (schema?.body) {
      sentBodies.set(request, request.body);
      request.body = bindBody(request.body);
    }
    // An indexed query list with a gap (`binding.ts`), reported with any text problems below.
    let gaps: Record<string, string[]> | null = null;
    if (schema?.querystring) {
      try {
        request.query = bindQuery(request.query);
      } catch (err) {
        if (!(err instanceof ValidationFailed)) return done(err as Error);
        gaps = err.errors;
      }
    }
    const url = request.raw.url ?? '';
    const replaced = bodyWasInvalidUtf8(request as unknown as FastifyRequest);
    // Nearly every request is clean: it is told so without building a list.
    if (
      !gaps &&
      !holdsBadText(request.body, replaced) &&
      !holdsBadText(request.query, false) &&
      !holdsBadText(request.params, false) &&
      !mayHoldNonUtf8Query(url)
    )
      return done();
    const bad = [
      ...Object.entries(gaps ?? {}).flatMap(([field, messages]) =>
        messages.map((message): [string, string] => [field, message]),
      ),
      ...badTextFields(request.body, replaced),
      ...badTextFields(request.query),
      ...badTextFields(request.params),
      ...queryNamesNotUtf8(url).map((name): [string, string] => {
        // The name as the route declares it, when it declares it (case-insensitively).
        const declared = queryName(name) ?? name;
        return [declared, `The ${declared} field must be valid UTF-8 text.`];
      }),
    ];
    if (bad.length === 0) return done();
    // A Map: field names are the client's (`constructor`, `__proto__`), not to be looked up on an object.
    const errors = new Map<string, string[]>();
    for (const [field, message] of bad) {
      const list = errors.get(field) ?? [];
      if (!list.includes(message)) list.push(message);
      errors.set(field, list);
    }
    done(new ValidationFailed(Object.fromEntries(errors)));
  };
  route.preValidation = [...asList(route.preValidation), hook];
}

/**
 * Fastify's `frameworkErrors`: a path whose percent-escapes are not UTF-8 (`/v2/Shipment/%ED%A0%80`,
 * a surrogate) is a 400 problem naming the path parameter it fell in, not Fastify's own error body.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // The router refused the request before any hook ran.
  reply.header('x-request-id', request.id);
  if (error.code !== 'FST_ERR_BAD_URL') {
    const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
    return sendProblem(reply, status, { detail: 'The request path could not be read.' });
  }
  // Find the route with each undecodable segment replaced by a marker, and the parameters that got one.
  const segments = (request.raw.url ?? '').split('?')[0]?.split('/') ?? [];
  const marked = segments.map((s, i) => {
    try {
      decodeURIComponent(s);
      return s;
    } catch {
      return `bad-segment-${i}`;
    }
  });
  const route = request.server.findRoute({
    method: (request.raw.method ?? 'GET') as 'GET',
    url: marked.join('/'),
  });
  const params = (route?.params ?? {}) as Record<string, string>;
  const names = Object.keys(params).filter((k) => params[k]?.startsWith('bad-segment-'));
  const fields = names.length > 0 ? names : ['request'];
  return sendProblem(reply, 400, {
    errors: Object.fromEntries(fields.map((f) => [f, [`The ${f} field must be valid UTF-8 text.`]])),
  });
}

import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from './helpers';

// Issue 17, CONTRACT §4 and §13: no input answers 5xx. For every operation the OpenAPI document
// lists, hostile path ids, query strings and JSON bodies (written as raw text, so that `-0`,
// `1e309`, duplicate keys differing in case, `__proto__`, lone surrogates and deep nesting reach
// the server as a client could send them), from an admin key and a customer key. The server must
// answer each with something below 500, and still be up afterwards.

let ctx: TestContext;
let customerKey: string;

interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyProps: string[] | null;
}

let operations: Operation[] = [];

type Schema = { properties?: object; $ref?: string };
type OpenApi = {
  components: { schemas: Record<string, Schema> };
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { in: string; name: string }[];
        requestBody?: { content: Record<string, { schema?: Schema }> };
      }
    >
  >;
};

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => new Date('2026-11-23T09:00:00Z') });
  customerKey = await ctx.keyFor({
    customerNrs: ['1000'],
    scopes: ['booking', 'price', 'invoice', 'shipments', 'webhooks', 'labels', 'ops'],
  });
  const doc = json<OpenApi>(await ctx.app.inject({ url: '/openapi.json' }));
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => {
      const content = op.requestBody ? Object.values(op.requestBody.content)[0] : undefined;
      // A named body is a component (`#/components/schemas/ShipmentUpdateRequest`).
      const ref = content?.schema?.$ref?.replace('#/components/schemas/', '');
      const body = ref ? doc.components.schemas[ref] : content?.schema;
      return {
        method: method.toUpperCase() as Operation['method'],
        path,
        pathParams: (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        bodyProps: op.requestBody ? Object.keys(body?.properties ?? {}) : null,
      };
    }),
  );
}, 60_000);
afterAll(() => ctx.close());

// ---- hostile values, as JSON text ----

const nastyStrings = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
    '\ud83d\udce6',
    '\ufffd',
    '-0',
    '1e309',
    'NaN',
    'Infinity',
    '0x10',
    '9999-12-31T23:59:59',
    '2026-02-30',
    '2026-11-23T24:00:00+14:00',
    '0000-01-01',
    '99999999999999999999',
    '70900010000000010',
    '../../etc/passwd',
    "'; drop table shipments; --",
    '__proto__',
    'constructor',
    '{"a":1}',
    'Ærø Ålesund Øst',
    '\u202e\u200b',
    'x'.repeat(70_000),
  ),
  fc.string({ maxLength: 30, unit: 'binary' }),
);

/** Numbers as a client may write them, beyond what JavaScript's JSON.stringify can produce. */
const nastyNumbers = fc.oneof(
  fc.constantFrom(
    '-0',
    '0',
    '1e309',
    '-1e309',
    '5e-324',
    '1e-400',
    '1.7976931348623157e308',
    '9007199254740993',
    '123456789012345678901234567890',
    '2147483648',
    '-2147483649',
    '0.1',
    '99999',
    '100000',
    '1E2',
  ),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
);

const deep = (levels: number, open: string, close: string, leaf: string) =>
  `${open.repeat(levels)}${leaf}${close.repeat(levels)}`;

const nastyStructures = fc.constantFrom(
  deep(65, '[', ']', '1'),
  deep(63, '[', ']', '1'),
  deep(70, '{"a":', '}', '1'),
  deep(10_000, '[', ']', ''),
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '[]',
  '{}',
  'null',
  'true',
);

/** Any JSON value as text; `names` are property names to use (with case-differing duplicates). */
function jsonValue(names: string[]): fc.Arbitrary<string> {
  const key = fc.oneof(
    names.length > 0 ? fc.constantFrom(...names) : fc.constant('x'),
    names.length > 0 ? fc.constantFrom(...names).map((n) => n.toLowerCase()) : fc.constant('X'),
    names.length > 0 ? fc.constantFrom(...names).map((n) => n.toUpperCase()) : fc.constant('x'),
    fc.constantFrom('__proto__', 'constructor', 'prototype', '\ud800', 'a\u0000'),
    fc.string({ maxLength: 8 }),
  );
  const { value } = fc.letrec<{ value: string; object: string; array: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      nastyStrings.map((s) => JSON.stringify(s)),
      nastyNumbers,
      fc.constantFrom('true', 'false', 'null'),
      nastyStructures,
      tie('object'),
      tie('array'),
    ),
    object: fc
      .array(fc.tuple(key, tie('value')), { maxLength: 6 })
      .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
    array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  }));
  return value;
}

/** A body for an operation: mostly an object with its own property names, sometimes anything. */
const bodyFor = (props: string[]) =>
  fc.oneof(
    {
      arbitrary: fc
        .array(fc.tuple(fc.constantFrom(...(props.length ? props : ['x'])), jsonValue(props)), {
          maxLength: 8,
        })
        .chain((entries) =>
          fc
            .subarray(entries)
            .map((dupes) =>
              [...entries, ...dupes.map(([k, v]) => [k.toLowerCase(), v] as const)]
                .map(([k, v]) => `${JSON.stringify(k)}:${v}`)
                .join(','),
            ),
        )
        .map((inner) => `{${inner}}`),
      weight: 4,
    },
    { arbitrary: jsonValue(props), weight: 1 },
    { arbitrary: fc.constantFrom('', '{', '{"a":}', '\u0000', '{"a":1}{"b":2}'), weight: 1 },
  );

/** Path segments and query values: encoded hostile text, and escapes that decode to no UTF-8. */
const urlText = fc.oneof(
  nastyStrings.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '')) || 'x'),
  nastyNumbers.map(encodeURIComponent),
  fc.constantFrom('%ED%A0%80', '%C0%AF', '%FF', '%', '%zz', '%00', '..', '.', '%2e%2e', '1'.repeat(3000)),
);

const queryFor = (names: string[]) =>
  fc
    .array(
      fc.tuple(
        fc.oneof(
          names.length ? fc.constantFrom(...names) : fc.constant('q'),
          names.length ? fc.constantFrom(...names).map((n) => n.toUpperCase()) : fc.constant('Q'),
          names.length ? fc.constantFrom(...names).map((n) => `${n}[0].weight`) : fc.constant('q[0]'),
          fc.constantFrom('__proto__', 'constructor', 'parcels[999999].x', '%ED%A0%80'),
        ),
        urlText,
      ),
      { maxLength: 8 },
    )
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));

function requestFor(op: Operation) {
  return fc.record({
    params: fc.array(urlText, { minLength: op.pathParams.length, maxLength: op.pathParams.length }),
    query: queryFor(op.queryParams),
    body: op.bodyProps ? bodyFor(op.bodyProps) : fc.constant(null),
    admin: fc.boolean(),
    contentType: fc.constantFrom('application/json', 'application/json', 'text/json', 'text/plain'),
  });
}

test('every operation of /openapi.json, hostile input: never a 5xx, and the server stays up', async () => {
  expect(operations.length).toBeGreaterThan(50);
  const started = Date.now();
  let requests = 0;
  for (const op of operations) {
    await fc.assert(
      fc.asyncProperty(requestFor(op), async ({ params, query, body, admin, contentType }) => {
        let i = 0;
        const path = op.path.replace(/\{[^}]+\}/g, () => params[i++] ?? 'x');
        const url = query ? `${path}?${query}` : path;
        const headers: Record<string, string> = bearer(admin ? ADMIN_KEY : customerKey);
        if (body !== null) headers['content-type'] = contentType;
        const res = await ctx.app.inject({
          method: op.method,
          url,
          headers,
          ...(body !== null ? { payload: body } : {}),
        });
        requests++;
        expect(
          res.statusCode,
          `${op.method} ${url.slice(0, 200)} ${String(body).slice(0, 300)} → ${res.body.slice(0, 300)}`,
        ).toBeLessThan(500);
      }),
      { numRuns: op.method === 'GET' ? 60 : 80, endOnFailure: true },
    );
  }
  const health = await ctx.app.inject({ url: '/healthz' });
  expect(health.statusCode).toBe(200);
  const ready = await ctx.app.inject({ url: '/readyz' });
  expect(ready.statusCode).toBe(200);
  console.info(
    `fuzzed ${operations.length} operations with ${requests} requests in ${Date.now() - started} ms`,
  );
}, 120_000);

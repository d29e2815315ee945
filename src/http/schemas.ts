import { Type } from 'typebox';

/** The spec's 400 body (ASP.NET `ValidationProblemDetails`), also used for every other problem. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    state: Type.Integer({ description: 'The HTTP status (the spec’s field name).' }),
    status: Type.Integer({ description: 'The HTTP status (RFC 9457).' }),
    traceId: Type.Union([Type.String(), Type.Null()], { description: 'Equals the X-Request-Id header.' }),
    detail: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
  },
  {
    $id: 'Problem',
    description: 'Problem details (RFC 9457) in the shape of the spec’s 400 body.',
    examples: [
      {
        type: 'https://tools.ietf.org/html/rfc7231#section-6.5.1',
        title: 'One or more validation errors occurred.',
        state: 400,
        status: 400,
        traceId: '6c1f7a7e-1d0f-4b0e-9a55-3a8c2f1d9b10',
        errors: { 'Parcels[3].Weight': ['The Weight field is required.'] },
      },
    ],
  },
);

/** Schema keyword: the name a schema has under `components.schemas` of the OpenAPI document. */
export const COMPONENT = 'x-component';

/**
 * Names a schema for the OpenAPI document, where it becomes a component every use refers to, so
 * generated clients get the spec's resource names (`ShipmentRecord`) instead of one anonymous type
 * per operation. Validation and serialisation ignore the keyword.
 */
export const named = <T extends object>(name: string, schema: T): T =>
  Object.assign(schema, { [COMPONENT]: name });

/**
 * Options of an object that refuses members it does not declare (400 naming each). The spec's
 * operations ignore unknown names, as the service they follow does (CONTRACT §2); an admin body that
 * changes money or access refuses them, where a misspelt optional name would silently mean "left
 * out": a credit note of every shipment, a customer's agreement cleared (docs/decisions.md).
 */
export const STRICT = { additionalProperties: false } as const;

const ref = Type.Unsafe<unknown>({ $ref: 'Problem#' });
const plain = (description: string) => Type.String({ description, contentMediaType: 'text/plain' });

/** Error answers every authenticated route can give, for the OpenAPI document. */
export const authErrors = {
  401: plain('Missing, unknown or revoked key (text/plain).'),
  403: plain('The key lacks the scope or may not act for a named customer number (text/plain).'),
  429: ref,
} as const;

export const problemResponses = <S extends number>(...statuses: S[]) =>
  Object.fromEntries(statuses.map((s) => [s, ref])) as Record<S, typeof ref>;

/** A nullable value as the spec's response records have them (every field present, `null` when unset). */
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

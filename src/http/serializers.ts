import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type Serializer = (data: unknown) => string;
type RouteDefinition = Parameters<ReturnType<ReturnType<typeof SerializerSelector>>>[0];

/** Per set of shared schemas (as JSON), each response schema's serialiser. */
const compiled = new Map<string, WeakMap<object, Serializer>>();

/**
 * Fastify's response serialiser factory (`schemaController.compilersFactory.buildSerializer`),
 * remembering each schema's serialiser for the process, as ajv does for validators. Every
 * fast-json-stringify build makes an Ajv of its own; an app has ~150 response schemas, and the tests
 * build ~100 apps in a few processes. Most route schemas are module constants, the same object in
 * every app (one built inline per app is compiled again, as before). A serialiser also depends on the
 * app's shared schemas, which key the cache by value; serialiser options (none today) may hold
 * functions, which a key cannot tell apart, so an app with options is not cached.
 */
export function buildSerializer(externalSchemas?: unknown, options?: object) {
  const compile = SerializerSelector()(externalSchemas, options);
  if (options && Object.keys(options).length > 0) return compile;
  const key = JSON.stringify(externalSchemas ?? null);
  const known = compiled.get(key) ?? new WeakMap<object, Serializer>();
  compiled.set(key, known);
  return (route: RouteDefinition): Serializer => {
    const schema = route.schema;
    if (typeof schema !== 'object' || schema === null) return compile(route);
    let serializer = known.get(schema);
    if (!serializer) {
      serializer = compile(route);
      known.set(schema, serializer);
    }
    return serializer;
  };
}

import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type Serializer = (data: unknown) => string;
type RouteDefinition = Parameters<ReturnType<ReturnType<typeof SerializerSelector>>>[0];

/** Per set of shared schemas and options (as JSON), each response schema's serialiser. */
const compiled = new Map<string, WeakMap<object, Serializer>>();

/**
 * Fastify's response serialiser factory (`schemaController.compilersFactory.buildSerializer`),
 * remembering each schema's serialiser for the process, as ajv does for validators. Every
 * fast-json-stringify build makes an Ajv of its own; an app has ~150 response schemas, and the tests
 * build ~100 apps in a few processes. Route schemas are module constants, so the same object in every
 * app; a serialiser also depends on the app's shared schemas and options, which key the cache by value.
 */
export function buildSerializer(externalSchemas?: unknown, options?: object) {
  const compile = SerializerSelector()(externalSchemas, options);
  const key = JSON.stringify([externalSchemas ?? null, options ?? null]);
  let serializers = compiled.get(key);
  if (!serializers) {
    serializers = new WeakMap();
    compiled.set(key, serializers);
  }
  const known = serializers;
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

/**
 * A route option's hooks as a list: `onRoute` hooks add to what the route declared, which Fastify
 * accepts as one function, a list or nothing (the route's HTTP methods likewise).
 */
export function asList<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/**
 * Case-insensitive binding of JSON properties and query parameters, as ASP.NET model binding
 * does for the service the spec describes (`customernr` binds to `Customernr`).
 *
 * A binder is compiled once per route from its JSON schema. It renames every property whose name
 * matches a declared one case-insensitively to the declared spelling, and drops `null` values of
 * declared properties that do not accept null (a .NET client that serialises absent optional
 * fields as `null` means "not given"). Validation then runs on the canonical names, so error keys
 * carry the spec's spelling.
 */

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

export type Binder = (value: unknown) => unknown;

const identity: Binder = (v) => v;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function acceptsNull(schema: JsonSchema): boolean {
  if (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(acceptsNull);
}

/** The properties an object schema declares, including those of its union and intersection branches. */
function declaredProperties(schema: JsonSchema): Record<string, JsonSchema> {
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])];
  return Object.assign({}, ...branches.map(declaredProperties), schema.properties);
}

function itemSchema(schema: JsonSchema): JsonSchema | undefined {
  if (schema.items) return schema.items;
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    const items = itemSchema(branch);
    if (items) return items;
  }
  return undefined;
}

export function compileBinder(schema: JsonSchema | undefined): Binder {
  if (!schema || typeof schema !== 'object') return identity;
  const properties = declaredProperties(schema);
  const names = Object.keys(properties);
  const items = itemSchema(schema);
  const itemBinder = items ? compileBinder(items) : identity;
  if (names.length === 0) {
    return itemBinder === identity ? identity : (v) => (Array.isArray(v) ? v.map(itemBinder) : v);
  }

  const canonical = new Map(names.map((n) => [n.toLowerCase(), n]));
  const children = new Map(
    names.map((n) => [n, { bind: compileBinder(properties[n]), nullable: acceptsNull(properties[n] ?? {}) }]),
  );
  return (value) => {
    if (!isPlainObject(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const name = canonical.get(key.toLowerCase()) ?? key;
      const child = children.get(name);
      if (child && v === null && !child.nullable) continue;
      out[name] = child ? child.bind(v) : v;
    }
    return out;
  };
}

const INDEXED = /^([A-Za-z_]+)\[(\d{1,6})\](?:\.([A-Za-z_]+)|\[([A-Za-z_]+)\])$/;

/**
 * Lists of objects in a query string, ASP.NET style: `parcels[0].weight=12&parcels[0].length=60`
 * (or `parcels[0][weight]=12`) become `parcels: [{ weight: '12', length: '60' }]`, ordered by index.
 * `compileQueryBinder` runs it before renaming, so the list and its properties bind case-insensitively.
 */
function groupIndexedParams(query: unknown): unknown {
  if (typeof query !== 'object' || query === null) return query;
  let indexed = false;
  for (const key in query) {
    if (key.includes('[')) {
      indexed = true;
      break;
    }
  }
  if (!indexed) return query;
  const out: Record<string, unknown> = {};
  const lists = new Map<string, Map<number, Record<string, unknown>>>();
  for (const [key, value] of Object.entries(query)) {
    const m = INDEXED.exec(key);
    if (!m?.[1] || !m[2]) {
      out[key] = value;
      continue;
    }
    const list = lists.get(m[1]) ?? new Map<number, Record<string, unknown>>();
    lists.set(m[1], list);
    const index = Number(m[2]);
    const item = list.get(index) ?? {};
    list.set(index, item);
    item[m[3] ?? m[4] ?? ''] = value;
  }
  for (const [name, items] of lists) {
    out[name] = [...items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
  }
  return out;
}

/** A query-string binder: indexed lists grouped (`groupIndexedParams`), then names bound. */
export function compileQueryBinder(schema: JsonSchema | undefined): Binder {
  const bind = compileBinder(schema);
  return bind === identity ? identity : (query) => bind(groupIndexedParams(query));
}

/** True when any string in the value holds a NUL character; no allocation, for the common case. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) {
    for (const v of value) if (holdsNul(v)) return true;
    return false;
  }
  if (value && typeof value === 'object') {
    for (const k in value) if (holdsNul((value as Record<string, unknown>)[k])) return true;
  }
  return false;
}

/**
 * Field names (`Parcels[2].ParcelId`) of every string holding a NUL character. PostgreSQL cannot
 * store NUL in text, so such input is refused up front as a 400 instead of failing as a 500.
 */
export function fieldsWithNul(value: unknown, path = ''): string[] {
  if (!holdsNul(value)) return [];
  if (typeof value === 'string') return [path || 'request'];
  if (Array.isArray(value)) return value.flatMap((v, i) => fieldsWithNul(v, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => fieldsWithNul(v, path ? `${path}.${k}` : k));
  }
  return [];
}

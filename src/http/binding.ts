import { ValidationFailed } from '../lib/errors';
import { formatOslo, parseZoned } from '../lib/oslo-time';

/**
 * Lenient binding of JSON properties and query parameters, as ASP.NET Core's model binding with its
 * web defaults does for the service the spec describes (CONTRACT §2).
 *
 * A binder is compiled once per route from its JSON schema. It renames every property whose name
 * matches a declared one case-insensitively to the declared spelling (`customernr` → `Customernr`),
 * and drops `null` values of declared properties that do not accept null (a .NET client that
 * serialises absent optional fields as `null` means "not given"). Where the schema types a value,
 * it reads it as ASP.NET would: a numeric string where a number belongs is that number, a number
 * where a string belongs is its decimal digits, a date-time marked `x-oslo-datetime` that carries
 * `Z` or an offset is that instant in Europe/Oslo local time, and `0` for a property marked
 * `x-zero-absent` (an optional id or parcel measure a .NET client left unset) is "not given".
 * Validation then runs on the canonical names and values, so error keys carry the spec's spelling.
 */

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  additionalProperties?: unknown;
  patternProperties?: unknown;
  [OSLO_DATETIME]?: boolean;
  [ZERO_ABSENT]?: boolean;
  [EMPTY_ABSENT]?: boolean;
};

export type Binder = (value: unknown) => unknown;

const identity: Binder = (v) => v;

/** Schema keyword: a date-time read as Europe/Oslo local time; one with `Z` or an offset is converted. */
export const OSLO_DATETIME = 'x-oslo-datetime';
/** Schema keyword: `0` means "not given" (an optional id or measure a .NET client left unset). */
export const ZERO_ABSENT = 'x-zero-absent';
/**
 * Schema keyword: an empty or blank string means "not given" (an optional text a .NET or Java client
 * left unset serialises as `""`), so it is judged, and stored, as absent: `null` (CONTRACT §2).
 */
export const EMPTY_ABSENT = 'x-empty-absent';

/** The JSON number grammar, as `JsonNumberHandling.AllowReadingFromString` reads it from a string. */
const NUMERIC = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const FRACTION = /\.(\d{1,7})(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * A date-time with `Z` or an offset (`2026-11-25T23:00:00.000Z`, `2026-11-26T00:00:00.1234567+01:00`)
 * as the Europe/Oslo local time of that instant (`2026-11-26T00:00:00.1234567`), fraction kept; any
 * other value unchanged (validation judges it).
 */
export function toOsloLocal(value: string): string {
  const instant = parseZoned(value);
  if (!instant) return value;
  const fraction = FRACTION.exec(value)?.[1];
  return fraction ? `${formatOslo(instant)}.${fraction}` : formatOslo(instant);
}

/** Every type a schema admits, through its unions. */
function typesOf(schema: JsonSchema): Set<string> {
  const own = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap((b) => [...typesOf(b)]);
  return new Set([...own, ...branches]);
}

const BOOLEAN_TEXT = /^\s*(true|false)\s*$/i;
const BLANK = /^\s+$/;

/**
 * The value binder of a schema that declares no properties or items: numbers, strings, date-times.
 * `fromText` (a query string) reads values as ASP.NET reads them from text: `True` is a boolean, and
 * a number of only spaces is empty, so validation refuses it (Ajv's coercion would read it as 0).
 */
function scalarBinder(schema: JsonSchema, fromText: boolean): Binder {
  const types = typesOf(schema);
  const numbers = types.has('number') || types.has('integer');
  const numeric = numbers && !types.has('string');
  const datetime = schema[OSLO_DATETIME] === true;
  if (types.has('string') && !numbers) {
    return (v) => {
      if (typeof v === 'number' && Number.isFinite(v)) return String(v);
      if (datetime && typeof v === 'string') return toOsloLocal(v);
      return v;
    };
  }
  const blankIsEmpty = fromText && numbers;
  const booleanText = fromText && types.has('boolean') && !types.has('string');
  if (!numeric && !blankIsEmpty && !booleanText) return identity;
  return (v) => {
    if (typeof v !== 'string') return v;
    if (numeric && NUMERIC.test(v)) return Number(v);
    if (blankIsEmpty && BLANK.test(v)) return '';
    if (booleanText && BOOLEAN_TEXT.test(v)) return v.trim().toLowerCase() === 'true';
    return v;
  };
}

/**
 * Whether a query value left empty is "not given": a text, date-time or boolean parameter, as
 * ASP.NET binds an empty or blank value to null for a string or a nullable type. Numbers keep their
 * 400 for a blank value (`scalarBinder`), and required parameters are then reported missing.
 */
function blankIsAbsent(schema: JsonSchema): boolean {
  const types = typesOf(schema);
  return (types.has('string') || types.has('boolean')) && !types.has('number') && !types.has('integer');
}

/** An empty string, or one of only white space (the first character tells nearly every value). */
const isBlank = (v: string) => v.length === 0 || (v.charCodeAt(0) <= 32 && v.trim() === '');

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

/**
 * An object with named members: parsed JSON, or a parsed query string (whose objects have a
 * prototype of their own: a check for plain objects, as the log's redaction makes, would refuse them).
 */
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function compileBinder(schema: JsonSchema | undefined, fromText = false): Binder {
  if (!schema || typeof schema !== 'object') return identity;
  const properties = declaredProperties(schema);
  const names = Object.keys(properties);
  const items = itemSchema(schema);
  const itemBinder = items ? compileBinder(items, fromText) : identity;
  if (names.length === 0) {
    // In a query string a blank item of a text list names nothing (`service=`): it is left out.
    if (fromText && items && blankIsAbsent(items)) {
      return (v) =>
        Array.isArray(v) ? v.map(itemBinder).filter((i) => typeof i !== 'string' || !isBlank(i)) : v;
    }
    if (itemBinder !== identity) return (v) => (Array.isArray(v) ? v.map(itemBinder) : v);
    return items ? identity : scalarBinder(schema, fromText);
  }

  const canonical = new Map(names.map((n) => [n.toLowerCase(), n]));
  // A member the schema does not declare is dropped, as System.Text.Json ignores it, so no rule can
  // read a value validation never saw; a schema that judges extra members (`additionalProperties`)
  // still gets them.
  const keepUndeclared = schema.additionalProperties !== undefined || schema.patternProperties !== undefined;
  const children = new Map(
    names.map((n) => {
      const child = properties[n] ?? {};
      return [
        n,
        {
          bind: compileBinder(child, fromText),
          nullable: acceptsNull(child),
          zeroAbsent: child[ZERO_ABSENT] === true,
          emptyAbsent: child[EMPTY_ABSENT] === true || (fromText && blankIsAbsent(child)),
          // A list in a query string given only blank (`service=`) is not given.
          emptyListAbsent: fromText && typesOf(child).has('array'),
        },
      ];
    }),
  );
  return (value) => {
    if (!isRecord(value)) return value;
    const out: Record<string, unknown> = {};
    for (const key in value) {
      const v = value[key];
      // Most clients spell names as the schema does: only other spellings are lowercased.
      const name = children.has(key) ? key : (canonical.get(key.toLowerCase()) ?? key);
      const child = children.get(name);
      if (!child) {
        if (keepUndeclared) out[name] = v;
        continue;
      }
      if (v === null && !child.nullable) continue;
      const bound = child.bind(v);
      if (child.zeroAbsent && bound === 0) continue;
      if (child.emptyAbsent && typeof bound === 'string' && isBlank(bound)) continue;
      if (
        child.emptyListAbsent &&
        (Array.isArray(bound) ? bound.length === 0 : typeof bound === 'string' && isBlank(bound))
      )
        continue;
      out[name] = bound;
    }
    return out;
  };
}

// Any number of digits: an index too large to be real is a gap, not a name to drop.
const INDEXED = /^([A-Za-z_]+)\[(\d+)\](?:\.([A-Za-z_]+)|\[([A-Za-z_]+)\])?$/;

/** One value, or the values of a repeated parameter, as a list. */
const valuesOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

/**
 * Parameter names are case-insensitive (ASP.NET's query collection): `service=16&Service=35` is one
 * parameter given twice, as `service=16&service=35` is, under the spelling seen first.
 */
function mergeCaseVariants(query: Record<string, unknown>): Record<string, unknown> {
  const spelling = new Map<string, string>();
  let out: Record<string, unknown> | null = null;
  for (const key of Object.keys(query)) {
    const lower = key.toLowerCase();
    const first = spelling.get(lower);
    if (first === undefined) {
      spelling.set(lower, key);
      continue;
    }
    out ??= { ...query };
    out[first] = [...valuesOf(out[first]), ...valuesOf(query[key])];
    delete out[key];
  }
  return out ?? query;
}

/**
 * Lists in a query string, ASP.NET style: `parcels[0].weight=12&parcels[0].length=60` (or
 * `parcels[0][weight]=12`) become `parcels: [{ weight: '12', length: '60' }]`, and `service[0]=16&
 * service[1]=35` becomes `service: ['16', '35']`, ordered by index. `compileQueryBinder` runs it
 * before renaming, so the list and its properties bind case-insensitively.
 *
 * A declared list's indexes run from 0 without a gap. ASP.NET stops reading a list at its first
 * missing index, so `Parcels[0]…&Parcels[2]…` is one parcel there and `Parcels[1]…` alone none:
 * items the client sent would be priced or dropped silently. A gap is refused instead: one
 * `ValidationFailed` names the first missing item of every such list, under the list's declared
 * spelling (`declaredLists`, by lower-case name).
 */
function groupIndexedParams(
  query: Record<string, unknown>,
  declaredLists: ReadonlyMap<string, string>,
): Record<string, unknown> {
  let indexed = false;
  for (const key in query) {
    if (key.includes('[') || key.includes('.')) {
      indexed = true;
      break;
    }
  }
  if (!indexed) return query;
  const out: Record<string, unknown> = {};
  // By the list's name in lower case (`Parcels[1]` and `parcels[0]` are one list), under its first spelling.
  const lists = new Map<string, { name: string; items: Map<number, unknown> }>();
  let gaps: Record<string, string[]> | null = null;
  for (const [key, value] of Object.entries(query)) {
    const m = INDEXED.exec(key);
    if (!m?.[1] || !m[2]) {
      // A declared list addressed in another form (`Parcels[-1].Weight`, `Parcels.Weight`,
      // `Parcels[0][0].Weight`) would be an unknown name, dropped: its item would go unpriced, as
      // one after a gap would.
      const spelt = declaredLists.get(key.split(/[[.]/, 1)[0]?.toLowerCase() ?? '');
      if (spelt !== undefined && key.length > spelt.length) {
        gaps ??= {};
        const messages = gaps[spelt] ?? [];
        messages.push(
          `${key} names no item of ${spelt}: its items are ${spelt}[0], ${spelt}[1], … (with .Name for a property).`,
        );
        gaps[spelt] = messages;
      }
      out[key] = value;
      continue;
    }
    const list = lists.get(m[1].toLowerCase()) ?? { name: m[1], items: new Map<number, unknown>() };
    lists.set(m[1].toLowerCase(), list);
    const index = Number(m[2]);
    const property = m[3] ?? m[4];
    if (property === undefined) {
      // `name[0]` given twice (`[0]` and `[00]`) is a repeated value, as a repeated parameter is.
      list.items.set(
        index,
        list.items.has(index) ? [...valuesOf(list.items.get(index)), ...valuesOf(value)] : value,
      );
      continue;
    }
    const held = list.items.get(index);
    const item =
      held !== null && typeof held === 'object' && !Array.isArray(held)
        ? (held as Record<string, unknown>)
        : {};
    list.items.set(index, item);
    // One property however it is spelt (`.Weight` and `[weight]`): given twice, it is two values.
    const lower = property.toLowerCase();
    item[lower] = Object.hasOwn(item, lower) ? [...valuesOf(item[lower]), ...valuesOf(value)] : value;
  }
  for (const [lower, { name, items }] of lists) {
    const sorted = [...items.entries()].sort(([a], [b]) => a - b);
    // Named as the route declares the list, as every other problem of its items is. A name the
    // route does not declare is dropped by the binder, as any unknown name is, and one it declares
    // as a single value (`Weight[0]=5`) is read as that value given once or more.
    const spelt = declaredLists.get(lower);
    if (spelt !== undefined) {
      for (const [position, [index]] of sorted.entries()) {
        if (index === position) continue;
        const missing = `${spelt}[${position}]`;
        gaps ??= {};
        gaps[missing] = [
          `The ${missing} field is required: a list's items are numbered from 0 without a gap, and ${spelt}[${index}] was given.`,
        ];
        break;
      }
    }
    const values = sorted.map(([, item]) => item);
    // `Services=16&services[0]=35` is one list of two values.
    const plain = Object.keys(out).find((k) => k.toLowerCase() === lower);
    if (plain === undefined) out[name] = values;
    else out[plain] = [...valuesOf(out[plain]), ...values];
  }
  if (gaps) throw new ValidationFailed(gaps);
  return out;
}

/**
 * The name a query parameter binds to as the route declares it (`parcels[1].weight` → `Parcels`,
 * `fromzip` → `fromZip`), or null when the route does not declare it.
 */
export function compileQueryNames(schema: JsonSchema | undefined): (name: string) => string | null {
  const canonical = new Map(Object.keys(declaredProperties(schema ?? {})).map((n) => [n.toLowerCase(), n]));
  return (name) => canonical.get((INDEXED.exec(name)?.[1] ?? name).toLowerCase()) ?? null;
}

/**
 * A query-string binder: case variants merged, indexed lists grouped, then names and values bound.
 * Throws `ValidationFailed` naming the first missing item of every declared list with a gap.
 */
export function compileQueryBinder(schema: JsonSchema | undefined): Binder {
  const bind = compileBinder(schema, true);
  if (bind === identity) return identity;
  const properties = declaredProperties(schema ?? {});
  // Names all spelt as declared are distinct names: nearly every query, and no merging to do.
  const declared = new Set(Object.keys(properties));
  const declaredLists = new Map(
    Object.entries(properties)
      .filter(([, s]) => typesOf(s).has('array'))
      .map(([name]) => [name.toLowerCase(), name]),
  );
  return (query) => {
    if (typeof query !== 'object' || query === null) return bind(query);
    let params = query as Record<string, unknown>;
    for (const name in params) {
      if (!declared.has(name)) {
        params = mergeCaseVariants(params);
        break;
      }
    }
    return bind(groupIndexedParams(params, declaredLists));
  };
}

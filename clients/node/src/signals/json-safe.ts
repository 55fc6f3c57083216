/**
 * An instance as JSON text would carry it, checked on the way: Dates become ISO 8601 strings and
 * objects with `toJSON` (a decimal type) their JSON, as `JSON.stringify` does; what JSON cannot
 * carry (a bigint, NaN, Infinity, a function, a cycle) throws here, naming its path, rather than
 * being dropped or nulled silently, since a row sent without it could never be sent again right.
 * So do what the service refuses in any body: nesting deeper than `maxDepth` (`{}` is 1,
 * `{"a":[1]}` 2) and the keys that once reached a prototype.
 */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export class NotJson extends Error {
  constructor(
    readonly path: string,
    what: string,
  ) {
    super(`${path}: ${what}`);
    this.name = 'NotJson';
  }
}

const describe = (v: unknown) => (typeof v === 'number' ? `${v} is not a JSON number` : `a ${typeof v} is not JSON`);

/**
 * PostgreSQL's jsonb, where the outbox keeps a signal, refuses `\u0000` and a lone surrogate
 * (half of a UTF-16 pair): the caller's INSERT would fail with an error naming no field.
 */
// eslint-disable-next-line no-control-regex -- \u0000 is what it looks for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
export const unstorable = (text: string) => {
  const m = UNSTORABLE.exec(text);
  if (!m) return undefined;
  return m[0] === '\u0000'
    ? 'holds \\u0000, which PostgreSQL cannot store in jsonb'
    : 'holds a lone surrogate (half of a UTF-16 pair: not Unicode text)';
};

export const jsonSafe = (value: unknown, path: string, maxDepth: number, seen: Set<object> = new Set()): unknown => {
  if (typeof value === 'string') {
    const why = unstorable(value);
    if (why !== undefined) throw new NotJson(path, why);
    return value;
  }
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new NotJson(path, describe(value));
    return value;
  }
  if (typeof value !== 'object') throw new NotJson(path, describe(value));
  if (seen.has(value)) throw new NotJson(path, 'refers to itself (a cycle)');
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return jsonSafe(toJSON.call(value, ''), path, maxDepth, seen);
  if (maxDepth < 1) throw new NotJson(path, 'nests too deep (the service takes 32 levels in a request)');
  seen.add(value);
  try {
    if (Array.isArray(value))
      return value.map((item, i) => jsonSafe(item === undefined ? null : item, `${path}[${i}]`, maxDepth - 1, seen));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (FORBIDDEN_KEYS.has(key)) throw new NotJson(`${path}.${key}`, 'is a key the service refuses (it reached prototypes)');
      const why = unstorable(key);
      if (why !== undefined) throw new NotJson(`${path}.${JSON.stringify(key)}`, `is a key that ${why}`);
      if (item !== undefined) out[key] = jsonSafe(item, `${path}.${key}`, maxDepth - 1, seen);
    }
    return out;
  } finally {
    seen.delete(value);
  }
};

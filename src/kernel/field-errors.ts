import * as t from 'io-ts';

/** One validation failure, named by its path in the request body (e.g. `webhooks[0].url`). */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}

const isWrapper = (type: t.Decoder<unknown, unknown>): boolean => {
  const tag = (type as { _tag?: string })._tag;
  return tag === 'IntersectionType' || tag === 'UnionType';
};

/** Joins io-ts context keys into a field path, skipping the member indexes of unions/intersections. */
export const pathOf = (context: t.Context): string => {
  let path = '';
  for (let i = 1; i < context.length; i++) {
    const parent = context[i - 1]!;
    if (isWrapper(parent.type)) continue;
    const key = context[i]!.key;
    path += Array.isArray(parent.actual) ? `[${key}]` : path === '' ? key : `.${key}`;
  }
  return path;
};

const describe = (value: unknown): string =>
  value === undefined ? 'missing' : value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;

/** Turns io-ts errors into field errors; our own codecs give messages, built-ins get one here. */
export const toFieldErrors = (errors: t.Errors): FieldError[] => {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of errors) {
    const path = pathOf(e.context);
    const expected = e.context[e.context.length - 1]?.type.name ?? 'value';
    const message = e.message ?? (e.value === undefined ? 'is required' : `must be ${expected}, got ${describe(e.value)}`);
    const key = `${path}\u0000${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ path: path || '(body)', message });
    }
  }
  return out;
};

/**
 * io-ts errors as one line of paths and what each wanted, never the values: the reason a stored
 * event cannot be read reaches logs, 503s and the signal's status, and the event may hold secrets.
 */
export const describeErrors = (errors: t.Errors): string =>
  toFieldErrors(errors)
    .map((e) => `${e.path}: ${e.message}`)
    .join('; ');

import * as t from 'io-ts';
import { closestName } from './closest-name';

type Out<R extends t.Props, O extends t.Props> = { [K in keyof R]: t.TypeOf<R[K]> } & { [K in keyof O]?: t.TypeOf<O[K]> };

export interface ClosedOptions {
  /** Fields accepted and dropped (read-only server fields sent back by a client). */
  readonly ignored?: readonly string[];
  /** A better message for a known mistake, by unknown field name. */
  readonly hints?: Readonly<Record<string, string>>;
  /** Optional fields where `null` means "absent" (any JSON value, such as a payload); elsewhere null is refused. */
  readonly nullable?: readonly string[];
}

const isPlainObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

/** A field's value, from the object itself only: never from its prototype. */
const own = (u: Record<string, unknown>, key: string): unknown => (Object.prototype.hasOwnProperty.call(u, key) ? u[key] : undefined);

/**
 * An object codec that reports every bad field at once and rejects unknown fields by name.
 * `null` is not "absent": a client leaves a field out (a merge patch's nulls are applied before
 * decoding). Reads and writes own properties only, so no input reaches or sets a prototype.
 */
export const closed = <R extends t.Props, O extends t.Props>(
  name: string,
  required: R,
  optional: O,
  options: ClosedOptions = {},
): t.Type<Out<R, O>, Out<R, O>, unknown> => {
  const known = new Set([...Object.keys(required), ...Object.keys(optional), ...(options.ignored ?? [])]);
  const nullable = new Set(options.nullable ?? []);
  return new t.Type<Out<R, O>, Out<R, O>, unknown>(
    name,
    (u): u is Out<R, O> => isPlainObject(u),
    (u, c) => {
      if (!isPlainObject(u)) return t.failure(u, c, 'must be an object');
      const errors: t.ValidationError[] = [];
      const out: [string, unknown][] = [];
      const field = (key: string, codec: t.Mixed) => {
        const value = own(u, key);
        const context = t.appendContext(c, key, codec, value);
        const result = codec.validate(value, context);
        // A missing field is named as missing, whatever its codec would say of `undefined`.
        if (result._tag === 'Left' && value === undefined) errors.push({ value, context, message: 'is required' });
        else if (result._tag === 'Left') errors.push(...result.left);
        else if (result.right !== undefined) out.push([key, result.right]);
      };
      for (const [key, codec] of Object.entries(required)) field(key, codec);
      for (const [key, codec] of Object.entries(optional)) {
        const value = own(u, key);
        if (value === null && !nullable.has(key)) {
          errors.push({
            value: null,
            context: t.appendContext(c, key, codec, null),
            message: 'must not be null (leave the field out instead)',
          });
        } else if (value !== undefined && value !== null) field(key, codec);
      }
      for (const key of Object.keys(u)) {
        if (known.has(key)) continue;
        const hint = options.hints ? own(options.hints, key) : undefined;
        const near = closestName(key, [...Object.keys(required), ...Object.keys(optional)]);
        const message = typeof hint === 'string' ? hint : `is not a known field${near ? `; did you mean ${near}?` : ''}`;
        errors.push({ value: u[key], context: t.appendContext(c, key, t.unknown, u[key]), message });
      }
      return errors.length > 0 ? t.failures(errors) : t.success(Object.fromEntries(out) as Out<R, O>);
    },
    t.identity,
  );
};

/** A codec that accepts what `base` accepts and then checks it; `check` returns an error message or undefined. */
export const checked = <A>(base: t.Type<A, A, unknown>, name: string, check: (a: A) => string | undefined) =>
  new t.Type<A, A, unknown>(
    name,
    base.is,
    (u, c) => {
      const result = base.validate(u, c);
      if (result._tag === 'Left') return result;
      const message = check(result.right);
      return message === undefined ? result : t.failure(u, c, message);
    },
    t.identity,
  );

/** A codec with a plain message for wrong input. */
export const described = <A>(base: t.Type<A, A, unknown>, message: string) =>
  new t.Type<A, A, unknown>(
    base.name,
    base.is,
    (u, c) => {
      const result = base.validate(u, c);
      return result._tag === 'Right' ? result : t.failure(u, c, u === undefined ? 'is required' : message);
    },
    t.identity,
  );

/**
 * One character that `String.prototype.trim` keeps (anything but JavaScript's white space and
 * line terminators), spelled out so that the OpenAPI document's `pattern` means the same in
 * every regex engine.
 */
export const NON_BLANK = '[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]';
const NON_BLANK_RE = new RegExp(NON_BLANK);

/** Length in Unicode code points, as JSON Schema's minLength and maxLength count. */
export const codePoints = (s: string): number => [...s].length;

export const NonEmptyString = checked(described(t.string, 'must be a string'), 'NonEmptyString', (s) =>
  NON_BLANK_RE.test(s) ? undefined : 'must not be empty',
);

/** An array codec whose item errors keep their index; `minItems` gives "must not be empty". */
export const arrayOf = <C extends t.Mixed>(item: C, minItems = 0, maxItems = Infinity) =>
  new t.Type<t.TypeOf<C>[], t.TypeOf<C>[], unknown>(
    `Array<${item.name}>`,
    (u): u is t.TypeOf<C>[] => Array.isArray(u),
    (u, c) => {
      if (!Array.isArray(u)) return t.failure(u, c, u === undefined ? 'is required' : 'must be an array');
      if (u.length < minItems) return t.failure(u, c, 'must not be empty');
      if (u.length > maxItems) return t.failure(u, c, `must have at most ${maxItems} items`);
      return t.array(item).validate(u, c);
    },
    t.identity,
  );

/** An object of string values (headers, conn_details, parameters); `checkValue` may reject a value. */
export const stringMap = (checkValue: (v: string) => string | undefined = () => undefined) =>
  new t.Type<Record<string, string>, Record<string, string>, unknown>(
    'StringMap',
    (u): u is Record<string, string> => isPlainObject(u),
    (u, c) => {
      if (!isPlainObject(u)) return t.failure(u, c, 'must be an object of strings');
      const errors: t.ValidationError[] = [];
      for (const [key, value] of Object.entries(u)) {
        const message = typeof value !== 'string' ? 'must be a string' : checkValue(value);
        if (message) errors.push({ value, context: t.appendContext(c, key, t.string, value), message });
      }
      return errors.length > 0 ? t.failures(errors) : t.success(u as Record<string, string>);
    },
    t.identity,
  );

/** For data read back from storage: one of `values` once normalised, else the list of them. */
export const storedOneOf = <A extends string>(name: string, values: readonly A[], normalise = (s: string) => s) =>
  new t.Type<A, A, unknown>(
    name,
    (u): u is A => values.includes(u as A),
    (u, c) => {
      const v = typeof u === 'string' ? normalise(u) : undefined;
      return values.includes(v as A) ? t.success(v as A) : t.failure(u, c, `must be one of ${values.join(', ')}`);
    },
    t.identity,
  );

/** For data read back from storage: these fields required, those optional, unknown ones dropped. */
export const storedShape = <R extends t.Props, O extends t.Props>(required: R, optional: O) =>
  t.intersection([t.exact(t.type(required)), t.exact(t.partial(optional))]);

/** Whether an object has the field, given (undefined counts as absent). */
export const hasField = (u: Record<string, unknown>, key: string) => Object.prototype.hasOwnProperty.call(u, key) && u[key] !== undefined;

/** A rule across an object's fields broken: on one `field` (its path), or on the object itself. */
export interface FieldRuleBroken {
  field?: string;
  message: string;
}

/**
 * `base`, plus rules across its fields (one field only with another, at least one of two). The
 * rules read which fields are there, not their values, so a bad value and a missing partner are
 * named together.
 */
export const withFieldRules = <A>(base: t.Type<A, A, unknown>, rules: (fields: Record<string, unknown>) => FieldRuleBroken[]) =>
  new t.Type<A, A, unknown>(
    base.name,
    base.is,
    (u, c) => {
      const result = base.validate(u, c);
      if (typeof u !== 'object' || u === null || Array.isArray(u)) return result;
      const fields = u as Record<string, unknown>;
      const errors: t.ValidationError[] = result._tag === 'Left' ? [...result.left] : [];
      for (const broken of rules(fields)) {
        const { field } = broken;
        errors.push(
          field === undefined
            ? { value: u, context: c, message: broken.message }
            : { value: fields[field], context: t.appendContext(c, field, t.unknown, fields[field]), message: broken.message },
        );
      }
      return errors.length > 0 ? t.failures(errors) : result;
    },
    t.identity,
  );

import type { NextFunction, Request, Response } from 'express';
import { FORBIDDEN_KEYS, MAX_JSON_DEPTH } from '../kernel/limits';
import { FieldError } from '../kernel/field-errors';
import { sendError } from './problem';

/**
 * Every parsed JSON body passes here before a handler sees it. Two things are refused, with
 * the field path: a key in FORBIDDEN_KEYS anywhere (`__proto__` set a trigger's payload
 * through the prototype), and nesting deeper than MAX_JSON_DEPTH (10,000 levels overflowed
 * the stack of every recursive walk after this one; 5,000 in a signal failed in Temporal's
 * payload converter, a 503 retried for ever). Iterative, so any depth JSON.parse accepts
 * is walked safely.
 *
 * Depth: a scalar is depth 0; an object or array is 1 + the depth of its deepest value.
 * `{}` is 1, `{"a":[1]}` is 2; a body of depth MAX_JSON_DEPTH passes, one more is refused.
 */

/** A node's place, kept as a parent chain: the path text is built only for an error. */
interface Place {
  readonly parent: Place | undefined;
  readonly key: string;
  readonly inArray: boolean;
}
interface Pending {
  readonly value: object;
  readonly place: Place | undefined;
  readonly depth: number;
}

const pathOf = (place: Place | undefined): string => {
  const parts: string[] = [];
  for (let p = place; p; p = p.parent) parts.push(p.inArray ? `[${p.key}]` : p.parent ? `.${p.key}` : p.key);
  return parts.reverse().join('') || '(body)';
};

const isContainer = (v: unknown): v is object => typeof v === 'object' && v !== null;

/** The first problem in document order, or undefined when the body is acceptable. */
export const jsonBodyProblem = (body: unknown): FieldError | undefined => {
  if (!isContainer(body)) return undefined;
  const stack: Pending[] = [{ value: body, place: undefined, depth: 1 }];
  while (stack.length > 0) {
    const { value, place, depth } = stack.pop()!;
    if (depth > MAX_JSON_DEPTH) {
      return { path: pathOf(place), message: `nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays` };
    }
    const children: Pending[] = [];
    if (Array.isArray(value)) {
      // By index: Object.keys on a 500,000-item array costs more than the whole walk.
      for (let i = 0; i < value.length; i++) {
        const v: unknown = value[i];
        if (isContainer(v)) children.push({ value: v, place: { parent: place, key: String(i), inArray: true }, depth: depth + 1 });
      }
    } else {
      for (const key of Object.keys(value)) {
        if (FORBIDDEN_KEYS.has(key)) {
          return {
            path: pathOf({ parent: place, key, inArray: false }),
            message: `is not allowed as a key (${[...FORBIDDEN_KEYS].join(', ')} name no data)`,
          };
        }
        const v = (value as Record<string, unknown>)[key];
        if (isContainer(v)) children.push({ value: v, place: { parent: place, key, inArray: false }, depth: depth + 1 });
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return undefined;
};

/** Express middleware: a 400 validation problem for an unsafe body, else on to the handlers. */
export const refuseUnsafeJson = (req: Request, res: Response, next: NextFunction) => {
  const found = jsonBodyProblem(req.body);
  if (found) return sendError(res, { _tag: 'Validation', errors: [found] });
  next();
};

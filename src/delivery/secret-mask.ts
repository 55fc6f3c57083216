import { maskOf } from './masked-values';
import type { DynamicValues } from './render';

/**
 * Resolved values shorter than this are not masked: a `1`, `yes` or `on` would turn every such
 * piece of an error into `{{ path }}`, making errors unreadable while hiding nothing a guess
 * would not find.
 */
export const MIN_MASKED_CHARS = 4;

/** Replaces each resolved dynamic value in a text by its `{{ path }}`. */
export type Mask = (text: string) => string;

/** A value as a template interpolates it (render.ts), and for an object or array each string inside it too. */
const textsOf = (value: unknown): string[] => {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object') return [String(value)];
  const texts: string[] = [];
  try {
    texts.push(JSON.stringify(value));
  } catch {
    /* not serialisable: its strings below still count */
  }
  const walk = (v: unknown, depth: number) => {
    if (typeof v === 'string') texts.push(v);
    else if (v !== null && typeof v === 'object' && depth < 20) Object.values(v).forEach((x) => walk(x, depth + 1));
  };
  walk(value, 0);
  return texts;
};

/** How a text may appear in an error: as it is, escaped inside a JSON string, URL-encoded. */
const formsOf = (text: string): string[] => {
  const forms = [text, JSON.stringify(text).slice(1, -1)];
  try {
    forms.push(encodeURIComponent(text), encodeURI(text));
  } catch {
    /* a lone surrogate: no encoded form to find */
  }
  return forms;
};

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const NOTHING: Mask = (text) => text;

/**
 * The mask of one attempt, from the values it resolved: every text leaving the attempt (its
 * reason, log fields, the failure Temporal records and spans copy) goes through it. One pass,
 * longest value first, so a value holding another is masked whole and no mask is masked again.
 */
export const maskFrom = (values: DynamicValues): Mask => {
  const pathOf = new Map<string, string>();
  for (const [path, value] of values) {
    for (const form of textsOf(value).flatMap(formsOf)) {
      if (form.length >= MIN_MASKED_CHARS && !pathOf.has(form)) pathOf.set(form, path);
    }
  }
  if (pathOf.size === 0) return NOTHING;
  const pattern = new RegExp(
    [...pathOf.keys()]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|'),
    'g',
  );
  return (text) => text.replace(pattern, (found) => maskOf(pathOf.get(found)!));
};

/** An unexpected error whose text (or cause's) holds a resolved value, as a copy without it; its name is kept: Temporal reads it as the type. */
export const maskedError = (e: unknown, mask: Mask, depth = 0): unknown => {
  if (!(e instanceof Error) || depth > 5) return e;
  const message = mask(e.message);
  const stack = e.stack === undefined ? undefined : mask(e.stack);
  const cause = maskedError(e.cause, mask, depth + 1);
  if (message === e.message && stack === e.stack && cause === e.cause) return e;
  const copy = new Error(message, cause === undefined ? undefined : { cause });
  copy.name = e.name;
  copy.stack = stack;
  return copy;
};

/**
 * The one template parser: a single left-to-right pass that splits a string into literal text
 * and `{{ … }}` expressions. Each character is looked at a bounded number of times, so the
 * time is linear in the length whatever the input (the regexes it replaces backtracked:
 * `"{{"` + 6,000 spaces took minutes). No regex anywhere here.
 *
 * Semantics (unchanged from the regex `/\{\{(.*?)\}\}/g`): an expression starts at the leftmost
 * `{{` and ends at the first `}}` after it; it does not span a line break; an unclosed `{{` is
 * literal text.
 */

export type Segment =
  | { readonly kind: 'text'; readonly text: string }
  /** `raw` is the whole `{{ … }}`; `path` the dotted path inside, or undefined when it is not one. */
  | { readonly kind: 'expression'; readonly raw: string; readonly path: string | undefined };

/** Line terminators: what the regex's `.` did not match. */
const isLineBreak = (c: number): boolean => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }

const isLetter = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** A dotted path `name(.name)*`: names of letters, digits and `_`; the first starts with a letter or `_`. */
export const isDottedPath = (s: string): boolean => {
  let segmentStart = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      if (i === segmentStart) return false;
      segmentStart = i + 1;
    } else if (!(isLetter(c) || isDigit(c)) || (i === 0 && isDigit(c))) {
      return false;
    }
  }
  return true;
};

const expression = (raw: string): Segment => {
  const inner = raw.slice(2, -2).trim();
  return { kind: 'expression', raw, path: isDottedPath(inner) ? inner : undefined };
};

/** Splits `text` into segments; joining their text and raw gives `text` back. */
export const scanTemplate = (text: string): Segment[] => {
  const segments: Segment[] = [];
  let literalStart = 0;
  let open = -1;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (open < 0) {
      if (c === OPEN && text.charCodeAt(i + 1) === OPEN) {
        open = i;
        i += 2;
      } else i += 1;
    } else if (c === CLOSE && text.charCodeAt(i + 1) === CLOSE) {
      if (open > literalStart) segments.push({ kind: 'text', text: text.slice(literalStart, open) });
      segments.push(expression(text.slice(open, i + 2)));
      i += 2;
      literalStart = i;
      open = -1;
    } else {
      // A `{{` before a line break can never close: every `{{` up to here fails the same way.
      if (isLineBreak(c)) open = -1;
      i += 1;
    }
  }
  if (literalStart < text.length) segments.push({ kind: 'text', text: text.slice(literalStart) });
  return segments;
};

const isBlank = (s: Segment): boolean => s.kind === 'text' && s.text.trim() === '';

/**
 * The path of a string that is exactly one valid expression, blanks around allowed: such a
 * string renders to the value itself (keeping its JSON type), not to text.
 */
export const loneExpressionPath = (segments: readonly Segment[]): string | undefined => {
  const expressions = segments.filter((s) => s.kind === 'expression');
  if (expressions.length !== 1 || !segments.every((s) => s.kind === 'expression' || isBlank(s))) return undefined;
  const only = expressions[0]!;
  return only.kind === 'expression' ? only.path : undefined;
};

/**
 * Template expressions: `{{ dotted.path }}` inside strings. `instance.*` reads the signal's
 * instance; any other path is a dynamic value, resolved when the action runs.
 */

const EXPRESSION = /\{\{(.*?)\}\}/g;
const DOTTED_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/;

export interface Expression {
  /** The whole `{{ … }}` text. */
  readonly raw: string;
  /** The dotted path, or undefined when the text between the braces is not one. */
  readonly path: string | undefined;
}

export const expressionsIn = (text: string): Expression[] =>
  Array.from(text.matchAll(EXPRESSION), (m) => {
    const inner = (m[1] ?? '').trim();
    return { raw: m[0], path: DOTTED_PATH.test(inner) ? inner : undefined };
  });

export const isInstancePath = (path: string): boolean => path === 'instance' || path.startsWith('instance.');

/** Why a string's expressions are not acceptable, or undefined when they are. */
export const checkExpressions = (text: string, allowedDynamic: ReadonlySet<string> | undefined): string | undefined => {
  for (const e of expressionsIn(text)) {
    if (e.path === undefined) return `${e.raw} is not a valid template expression (expected {{ dotted.path }})`;
    if (allowedDynamic && !isInstancePath(e.path) && !allowedDynamic.has(e.path)) {
      return `{{ ${e.path} }} is not an allowed dynamic value (see dynamic_values.allowed_paths)`;
    }
  }
  return undefined;
};

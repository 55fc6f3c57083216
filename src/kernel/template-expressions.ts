/**
 * Template expressions: `{{ dotted.path }}` inside strings. `instance.*` reads the signal's
 * instance, `previous.*` its state before the change; any other path is a dynamic value, resolved when the action runs.
 * `template-scan.ts` is the only parser; this file checks what it finds.
 */
import { FORBIDDEN_KEYS } from './limits';
import { scanTemplate } from './template-scan';

export interface Expression {
  /** The whole `{{ … }}` text. */
  readonly raw: string;
  /** The dotted path, or undefined when the text between the braces is not one. */
  readonly path: string | undefined;
}

export const expressionsIn = (text: string): Expression[] => {
  const out: Expression[] = [];
  for (const s of scanTemplate(text)) if (s.kind === 'expression') out.push({ raw: s.raw, path: s.path });
  return out;
};

/** A path into the signal's data (`instance`, or `previous`: the instance before the change), not a dynamic value. */
export const isSignalDataPath = (path: string): boolean =>
  path === 'instance' || path.startsWith('instance.') || path === 'previous' || path.startsWith('previous.');

/** A path through `__proto__`, `constructor` or `prototype` could only ever reach a prototype. */
const forbiddenSegment = (path: string): string | undefined => path.split('.').find((s) => FORBIDDEN_KEYS.has(s));

/** Why a string's expressions are not acceptable, or undefined when they are. */
export const checkExpressions = (text: string, allowedDynamic: ReadonlySet<string> | undefined): string | undefined => {
  for (const e of expressionsIn(text)) {
    if (e.path === undefined) return `${shorten(e.raw)} is not a valid template expression (expected {{ dotted.path }})`;
    // Write-time rules: stored events are read back with allowedDynamic undefined and stay readable.
    if (!allowedDynamic) continue;
    const forbidden = forbiddenSegment(e.path);
    if (forbidden) return `${shorten(`{{ ${e.path} }}`)} may not use ${forbidden} (it names no data)`;
    if (!isSignalDataPath(e.path) && !allowedDynamic.has(e.path)) {
      return `${shorten(`{{ ${e.path} }}`)} is not an allowed dynamic value (see dynamic_values.allowed_paths)`;
    }
  }
  return undefined;
};

/** An error message quotes at most this much of an expression (a 100 KB one is echoed no further). */
const QUOTED = 60;
const shorten = (raw: string): string => (raw.length <= QUOTED ? raw : `${raw.slice(0, QUOTED - 5)}…${raw.slice(-2)}`);

/** The dynamic-value paths a set of strings uses (resolved before rendering). */
export const dynamicPathsIn = (values: unknown[]): string[] => {
  const paths = new Set<string>();
  const walk = (v: unknown) => {
    if (typeof v === 'string')
      for (const e of expressionsIn(v)) {
        if (e.path && !isSignalDataPath(e.path)) paths.add(e.path);
      }
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  values.forEach(walk);
  return [...paths];
};

import { isSignalDataPath } from '../kernel/template-expressions';
import { loneExpressionPath, scanTemplate } from '../kernel/template-scan';
import type { JsonValue } from '../kernel/json-value';
import type { Rendered } from '../destinations/port/channel';
import type { SignalEnvelope } from '../dispatch/types';
import { MAX_RENDERED_CHARS } from '../kernel/limits';

/** What `{{ instance.… }}` and `{{ previous.… }}` read: the signal's instance and its state before the change. */
export interface SignalData {
  instance: Record<string, unknown>;
  previous?: Record<string, unknown>;
}

/** Resolved dynamic values by path, looked up before rendering (they may be async). */
export type DynamicValues = ReadonlyMap<string, unknown>;

/** A rendering that would pass MAX_RENDERED_CHARS: too large now, too large on every retry. */
export class RenderTooLarge extends Error {
  constructor() {
    super(`the rendered template values would exceed ${MAX_RENDERED_CHARS} characters`);
    this.name = 'RenderTooLarge';
  }
}

/** Characters substituted values may still add to one rendering; charged before anything large is built. */
export interface RenderBudget {
  left: number;
}
export const renderBudget = (): RenderBudget => ({ left: MAX_RENDERED_CHARS });
const spend = (budget: RenderBudget, chars: number) => {
  budget.left -= chars;
  if (budget.left < 0) throw new RenderTooLarge();
};
/** What a value adds once serialised (a lone expression's value is serialised with the body). */
const sizeOf = (v: unknown): number => {
  if (typeof v === 'string') return v.length;
  try {
    return JSON.stringify(v)?.length ?? 0;
  } catch {
    return 0;
  }
};

const lookup = (root: unknown, segments: string[]): { found: boolean; value: unknown } => {
  let value = root;
  for (const s of segments) {
    if (value === null || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, s))
      return { found: false, value: undefined };
    value = (value as Record<string, unknown>)[s];
  }
  return { found: true, value };
};

const asText = (v: unknown): string =>
  v === null || v === undefined ? '' : typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** Renders `{{ … }}` in one string: a lone expression keeps its value's type, others interpolate as text. */
export const renderString = (
  text: string,
  data: SignalData,
  dynamic: DynamicValues,
  warnings: string[],
  budget: RenderBudget = renderBudget(),
): unknown => {
  const valueOf = (path: string): unknown => {
    if (isSignalDataPath(path)) {
      const [root, ...rest] = path.split('.');
      const { found, value } = lookup(root === 'previous' ? data.previous : data.instance, rest);
      if (!found) {
        warnings.push(`${path} is missing`);
        return null;
      }
      return value;
    }
    return dynamic.get(path) ?? null;
  };
  const segments = scanTemplate(text);
  const lone = loneExpressionPath(segments);
  if (lone !== undefined) {
    const value = valueOf(lone);
    spend(budget, sizeOf(value));
    return value;
  }
  // Built from the segments, so a substituted value is never scanned again.
  let out = '';
  for (const s of segments) {
    if (s.kind === 'text' || s.path === undefined) {
      out += s.kind === 'text' ? s.text : s.raw;
      continue;
    }
    const piece = asText(valueOf(s.path));
    spend(budget, piece.length);
    out += piece;
  }
  return out;
};

const renderValue = (v: JsonValue, data: SignalData, dynamic: DynamicValues, warnings: string[], budget: RenderBudget): unknown => {
  if (typeof v === 'string') return renderString(v, data, dynamic, warnings, budget);
  if (Array.isArray(v)) return v.map((x) => renderValue(x, data, dynamic, warnings, budget));
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, renderValue(x, data, dynamic, warnings, budget)]));
  }
  return v;
};

/**
 * The body of an action (docs/spec.md, Payload): the rendered payload, JSON when it is an object or array
 * (or any JSON-serialisable value), text when it is a string; with no payload, the envelope.
 */
export const renderBody = (payload: JsonValue | undefined, signal: SignalEnvelope, triggerId: string, dynamic: DynamicValues): Rendered => {
  const warnings: string[] = [];
  if (payload === undefined) {
    const { id, signal: name, app_label, model_name, instance, previous, occurred_at } = signal;
    const envelope = {
      signal: name,
      app_label,
      model_name,
      instance,
      ...(previous === undefined ? {} : { previous }),
      signal_id: id,
      trigger_id: triggerId,
      occurred_at,
    };
    return { body: JSON.stringify(envelope), contentType: 'application/json', warnings };
  }
  const rendered = renderValue(payload, signal, dynamic, warnings, renderBudget());
  if (typeof rendered === 'string') return { body: rendered, contentType: 'text/plain; charset=utf-8', warnings };
  try {
    const json = JSON.stringify(rendered);
    if (json !== undefined) return { body: json, contentType: 'application/json', warnings };
  } catch {
    /* not serialisable: sent as text below */
  }
  return { body: asTextSafe(rendered), contentType: 'text/plain; charset=utf-8', warnings };
};

const asTextSafe = (v: unknown): string => {
  try {
    return String(v);
  } catch {
    return '';
  }
};

/** Renders a string → string map (headers, conn_details, parameters) as text. */
export const renderStringMap = (map: Record<string, string> | undefined, data: SignalData, dynamic: DynamicValues, warnings: string[]) => {
  const budget = renderBudget();
  return Object.fromEntries(Object.entries(map ?? {}).map(([k, v]) => [k, asText(renderString(v, data, dynamic, warnings, budget))]));
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * RFC 7396 JSON merge patch: objects merge, `null` removes, anything else replaces.
 * Results are built with Object.fromEntries, which defines own properties: a `__proto__` key
 * stays data (the codecs refuse it) and never sets a prototype, as `result[key] = …` did.
 */
export const mergePatch = (target: unknown, patch: unknown): unknown => {
  if (!isObject(patch)) return patch;
  const merged = new Map<string, unknown>(isObject(target) ? Object.entries(target) : []);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) merged.delete(key);
    else merged.set(key, mergePatch(merged.get(key), value));
  }
  return Object.fromEntries(merged);
};

/** Fields a patch replaces whole: inside a condition, `null` is a value to compare with, not a removal. */
const REPLACED_WHOLE = ['condition'];

/** A trigger definition patched: a merge patch, except that the fields above are replaced (or removed by `null`). */
export const patchDefinition = (definition: unknown, patch: Record<string, unknown>): unknown => {
  const whole = REPLACED_WHOLE.filter((k) => Object.prototype.hasOwnProperty.call(patch, k) && patch[k] !== null);
  const merged = mergePatch(definition, Object.fromEntries(Object.entries(patch).filter(([k]) => !whole.includes(k))));
  return whole.length === 0 ? merged : { ...(merged as Record<string, unknown>), ...Object.fromEntries(whole.map((k) => [k, patch[k]])) };
};

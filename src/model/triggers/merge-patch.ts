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

/** `Retry-After` as milliseconds (seconds or an HTTP date); undefined when absent or unreadable. */
export const retryAfterMs = (header: string | string[] | undefined, now = Date.now()): number | undefined => {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
};

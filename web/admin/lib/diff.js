// A line diff of two JSON values, pure (no DOM): what changed between two trigger versions.

/** JSON with object keys sorted at every level and two-space indents, so equal values print alike. */
export function stableStringify(value) {
  return JSON.stringify(sortKeys(value), null, 2) ?? 'undefined';
}

function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys(value[k])]),
  );
}

/**
 * Above this many LCS table cells (lines before × lines after, once the common start and end
 * are set aside) the diff is a plain before/after: the table would cost too much memory and time.
 */
export const MAX_CELLS = 250_000;

/**
 * `[{ op, text }]`, op `=` (both), `-` (only before) or `+` (only after), in reading order.
 * `bounded` is false when the inputs were too large for a line diff and `lines` is the whole
 * of before removed, then the whole of after added.
 */
export function diffLines(before, after, maxCells = MAX_CELLS) {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let end = 0;
  while (end < before.length - start && end < after.length - start && before[before.length - 1 - end] === after[after.length - 1 - end])
    end++;
  const a = before.slice(start, before.length - end);
  const b = after.slice(start, after.length - end);
  const head = before.slice(0, start).map((text) => ({ op: '=', text }));
  const tail = before.slice(before.length - end).map((text) => ({ op: '=', text }));
  if (a.length * b.length > maxCells) {
    return { bounded: false, lines: [...head, ...a.map((text) => ({ op: '-', text })), ...b.map((text) => ({ op: '+', text })), ...tail] };
  }
  return { bounded: true, lines: [...head, ...lcsDiff(a, b), ...tail] };
}

/** The classic LCS table (lengths of common subsequences of the suffixes), walked forwards. */
function lcsDiff(a, b) {
  const n = a.length;
  const m = b.length;
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] =
        a[i] === b[j] ? table[(i + 1) * width + j + 1] + 1 : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: '=', text: a[i] });
      i++;
      j++;
    } else if (table[(i + 1) * width + j] >= table[i * width + j + 1]) out.push({ op: '-', text: a[i++] });
    else out.push({ op: '+', text: b[j++] });
  }
  while (i < n) out.push({ op: '-', text: a[i++] });
  while (j < m) out.push({ op: '+', text: b[j++] });
  return out;
}

/** The diff of two JSON values (undefined: nothing, e.g. before creation), pretty-printed with stable key order. */
export function jsonDiff(before, after, maxCells = MAX_CELLS) {
  const lines = (v) => (v === undefined ? [] : stableStringify(v).split('\n'));
  return diffLines(lines(before), lines(after), maxCells);
}

/**
 * Groups a diff for reading: changed lines with `context` unchanged lines around them; longer
 * unchanged runs become `{ op: '…', count }`.
 */
export function withContext(lines, context = 3) {
  const keep = lines.map(() => false);
  lines.forEach((l, i) => {
    if (l.op === '=') return;
    for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++) keep[k] = true;
  });
  const out = [];
  let skipped = 0;
  lines.forEach((l, i) => {
    if (keep[i]) {
      if (skipped > 0) out.push({ op: '…', count: skipped });
      skipped = 0;
      out.push(l);
    } else skipped++;
  });
  if (skipped > 0) out.push({ op: '…', count: skipped });
  return out;
}

/** How many lines were added and removed. */
export const changeCount = (lines) => ({
  added: lines.filter((l) => l.op === '+').length,
  removed: lines.filter((l) => l.op === '-').length,
});

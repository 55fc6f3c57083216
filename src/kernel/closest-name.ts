/**
 * The known name a misspelt one most likely meant: the nearest by edit distance (insertions,
 * deletions, substitutions and swaps of neighbours each count 1), if it is near enough for a
 * typo: at most 1 edit for names up to 4 characters, 2 up to 8, 3 beyond. Ties go to the first.
 */
export const closestName = (name: string, known: Iterable<string>): string | undefined => {
  const limit = name.length <= 4 ? 1 : name.length <= 8 ? 2 : 3;
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    if (Math.abs(candidate.length - name.length) > limit) continue;
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
};

/** Optimal string alignment distance (Damerau–Levenshtein without repeated edits of a substring). */
const editDistance = (a: string, b: string): number => {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
};

/** The p-th percentile of xs (nearest rank; NaN for none). */
export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
export const median = (xs: number[]) => pct(xs, 50);

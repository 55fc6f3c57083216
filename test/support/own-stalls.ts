/**
 * The times this test process itself could not run (a busy CI machine starves it, or a GC
 * pauses it): a timing measured from here that spans such a gap includes time the process under
 * test did not cause. A tick every TICK_MS; a later one marks the gap between them as a stall.
 */
const TICK_MS = 20;
const STALL_MS = 50;

export const ownStalls = () => {
  const stalls: { from: number; to: number }[] = [];
  let last = Date.now();
  const timer = setInterval(() => {
    const now = Date.now();
    if (now - last > STALL_MS) stalls.push({ from: last + TICK_MS, to: now });
    last = now;
  }, TICK_MS);
  return {
    /** How much of [from, to] this process spent stalled. */
    within: (from: number, to: number) => stalls.reduce((sum, s) => sum + Math.max(0, Math.min(to, s.to) - Math.max(from, s.from)), 0),
    stop: () => clearInterval(timer),
  };
};

/**
 * At most `size` holders at once; the others wait, first come first served. `take` resolves to
 * the slot's release, which frees it once however often it is called.
 */
export const createSlots = (size: number) => {
  let free = size;
  const waiting: Array<() => void> = [];
  const releaser = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = waiting.shift();
      if (next) next();
      else free += 1;
    };
  };
  return {
    take: async (): Promise<() => void> => {
      if (free > 0) free -= 1;
      else await new Promise<void>((r) => waiting.push(r));
      return releaser();
    },
    /** Holders now and callers waiting (for metrics and tests). */
    usage: () => ({ held: size - free, waiting: waiting.length }),
  };
};

export type Slots = ReturnType<typeof createSlots>;

/** Resolves once `done()` holds, checking every 10 ms; throws after `ms`. */
export const until = async (done: () => boolean, ms = 5000): Promise<void> => {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`condition not met in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

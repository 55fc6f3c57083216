// Follows something that changes on the server: loads it again every interval while it is live,
// and stops for good once it is final, once its element leaves the page, or on navigation.

/**
 * Calls `load()` now and then every `intervalMs` while `isLive(value)`; `show(value)` each time,
 * `intervalMs` a number or a function of the value (a page may ask less often while idle);
 * `fail(error)` once if a load fails (following stops then). Returns `{ stop }`. No timer or
 * answer outlives the page: a hash change or `el` leaving the document stops it, and an answer
 * that arrives after that is dropped.
 */
export function follow(el, { load, show, fail, isLive, intervalMs = 1000 }) {
  let stopped = false;
  let timer;
  const hash = location.hash;
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    window.removeEventListener('hashchange', stop);
  };
  const gone = () => stopped || !el.isConnected || location.hash !== hash;
  const tick = async () => {
    if (gone()) return stop();
    let value;
    try {
      value = await load();
    } catch (e) {
      if (!gone()) fail(e);
      return stop();
    }
    if (gone()) return stop();
    show(value);
    if (isLive(value)) timer = setTimeout(tick, typeof intervalMs === 'function' ? intervalMs(value) : intervalMs);
    else stop();
  };
  window.addEventListener('hashchange', stop);
  tick();
  return { stop };
}

// The admin's router: `#/…` routes to a page module; each page renders into <main>.
import { ApiError, forgetKey, setKeyPrompt, storedKey } from './lib/api.js';
import { announce, h, replace } from './lib/dom.js';
import { dropGuard, installLeaveGuard, leavingLosesEdits, mayLeave } from './lib/leave-guard.js';

/** [pattern, module, names of the captured parts]; the first match wins. */
const ROUTES = [
  [/^\/triggers\/?$/, './pages/triggers.js', []],
  [/^\/triggers\/new$/, './pages/trigger-form.js', []],
  [/^\/triggers\/([^/]+)\/edit$/, './pages/trigger-form.js', ['id']],
  [/^\/triggers\/([^/]+)\/history$/, './pages/history.js', ['id']],
  [/^\/triggers\/([^/]+)\/dispatches$/, './pages/dispatches.js', ['id']],
  [/^\/triggers\/([^/]+)\/send-test$/, './pages/send-test.js', ['id']],
  [/^\/triggers\/([^/]+)$/, './pages/trigger.js', ['id']],
  [/^\/signals\/?$/, './pages/signals.js', []],
  [/^\/signals\/([^/]+)$/, './pages/signal.js', ['id']],
  [/^\/limits\/?$/, './pages/limits.js', []],
  [/^\/alerts\/?$/, './pages/alerts.js', []],
];

const main = () => document.getElementById('main');

/** The route of a hash such as `#/triggers/abc?x=1`: its module, params and query. */
export function routeOf(hash) {
  const [path, search = ''] = (hash.replace(/^#/, '') || '/triggers').split('?');
  for (const [pattern, module, names] of ROUTES) {
    const m = pattern.exec(path);
    if (m)
      return {
        module,
        params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])])),
        query: new URLSearchParams(search),
      };
  }
  return undefined;
}

/** What a failed load shows: the API's own words, and what to do about a key. */
export function errorView(error) {
  if (error instanceof ApiError) {
    const hint = error.status === 403 ? ' Your API key does not allow this.' : '';
    return h('div', { class: 'error', role: 'alert' }, `${error.problem.title ?? 'Error'} (${error.status}): ${error.message}.${hint}`);
  }
  return h('div', { class: 'error', role: 'alert' }, `Something went wrong: ${error?.message ?? error}`);
}

let rendering = 0;
/** The hash of the page on screen (a hash change the reader takes back restores it). */
let shownHash;
async function render() {
  const turn = ++rendering;
  shownHash = location.hash;
  dropGuard();
  const route = routeOf(location.hash);
  const root = main();
  if (!route) {
    replace(
      root,
      h('h1', {}, 'Not found'),
      h('p', {}, 'No admin page at this address. ', h('a', { href: '#/triggers' }, 'Go to the triggers.')),
    );
    return;
  }
  try {
    const page = await import(route.module);
    if (turn !== rendering) return;
    await page.default(root, route.params, route.query);
  } catch (e) {
    if (turn === rendering) replace(root, errorView(e));
  }
  if (turn === rendering) {
    document.getElementById('forget-key').hidden = !storedKey();
    (root.querySelector('.page-heading') ?? root).focus();
  }
}

function keyPrompt(reason) {
  const dialog = document.getElementById('key-dialog');
  const input = document.getElementById('key-input');
  document.getElementById('key-reason').textContent = `${reason} It is kept for this browser session only.`;
  input.value = '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(input.value.trim() || undefined), { once: true });
    dialog.showModal();
    input.focus();
  });
}

/**
 * Back, forward or a script changed the hash: with unsaved edits the address is put back while
 * the page asks (links ask before the address changes: lib/leave-guard.js).
 */
async function navigate() {
  if (location.hash === shownHash) return;
  if (leavingLosesEdits()) {
    const target = location.hash;
    history.replaceState(history.state, '', shownHash || location.pathname);
    if (!(await mayLeave())) return;
    history.replaceState(history.state, '', target);
  }
  render();
}

setKeyPrompt(keyPrompt);
installLeaveGuard();
document.getElementById('forget-key').addEventListener('click', () => {
  forgetKey();
  announce('API key forgotten');
  render();
});
window.addEventListener('hashchange', navigate);
render();

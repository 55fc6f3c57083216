// The links between a trigger's pages (definition, history, dispatches, test signal).
import { h } from './dom.js';

const PAGES = [
  ['', 'Definition'],
  ['/history', 'History'],
  ['/dispatches', 'Dispatches'],
  ['/send-test', 'Send a test signal'],
];

/**
 * A small navigation for trigger `id`; `current` names this page (`/history`, …). A deleted
 * trigger has only its history and dispatches.
 */
export function triggerLinks(id, current, { deleted = false } = {}) {
  const base = `#/triggers/${encodeURIComponent(id)}`;
  const shown = deleted ? PAGES.filter(([path]) => path === '/history' || path === '/dispatches') : PAGES;
  return h(
    'nav',
    { class: 'actions', 'aria-label': 'This trigger' },
    shown.map(([path, text]) =>
      path === current ? h('a', { href: base + path, 'aria-current': 'page' }, text) : h('a', { href: base + path }, text),
    ),
  );
}

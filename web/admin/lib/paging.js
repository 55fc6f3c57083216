// Paging both ways over an API that pages forward only (cursors): a page's hash holds its own
// cursor and those of the pages between the first and it, so "Previous page" is a plain link that
// reload, back and a copied address keep.
import { h } from './dom.js';

/**
 * `{ cursor, before }` of a list's query: this page's cursor (none on the first page) and the
 * cursors of the pages before it, oldest first (the first page's is none, so it is not there).
 */
export const pagingOf = (query) => ({ cursor: query.get('cursor') || undefined, before: query.getAll('prev').filter(Boolean) });

/** Adds a page's `cursor` and `prev` parameters to `params` (URLSearchParams); nothing for the first page. */
export function addPaging(params, { cursor, before = [] } = {}) {
  if (!cursor) return params;
  params.set('cursor', cursor);
  for (const c of before) params.append('prev', c);
  return params;
}

/** First, Previous and Next page links; `hrefOf(paging)` is the list's hash for a page's paging. */
export function pageLinks(hrefOf, { cursor, before }, next) {
  const previous = before.length > 0 ? { cursor: before.at(-1), before: before.slice(0, -1) } : {};
  return h(
    'nav',
    { class: 'actions', 'aria-label': 'Pages' },
    cursor ? h('a', { href: hrefOf({}) }, 'First page') : null,
    cursor ? h('a', { href: hrefOf(previous), rel: 'prev' }, 'Previous page') : null,
    next ? h('a', { href: hrefOf({ cursor: next, before: cursor ? [...before, cursor] : [] }), rel: 'next' }, 'Next page') : null,
  );
}

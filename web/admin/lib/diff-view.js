// Renders a line diff: removed and added lines marked by text (−/+) as well as by colour.
import { h } from './dom.js';
import { changeCount, jsonDiff, withContext } from './diff.js';

const MARK = { '-': '− ', '+': '+ ', '=': '  ' };

const lineOf = (l) => {
  if (l.op === '…') return h('span', { class: 'diff-skip' }, `  … ${l.count} unchanged line${l.count === 1 ? '' : 's'}`);
  if (l.op === '-') return h('del', { class: 'diff-del' }, MARK['-'], l.text);
  if (l.op === '+') return h('ins', { class: 'diff-add' }, MARK['+'], l.text);
  return h('span', { class: 'diff-same' }, MARK['='], l.text);
};

/**
 * The diff of two JSON values as a block: a one-line summary (read first by screen readers),
 * then the changed lines with a little context.
 */
export function diffView(before, after, label) {
  const { bounded, lines } = jsonDiff(before, after);
  const { added, removed } = changeCount(lines);
  const summary =
    added + removed === 0
      ? 'No change to the definition.'
      : `${removed} line${removed === 1 ? '' : 's'} removed, ${added} added${bounded ? '' : ' (too large to compare line by line: before, then after)'}.`;
  return h(
    'div',
    { class: 'diff', role: 'group', 'aria-label': label },
    h('p', { class: 'muted diff-summary' }, summary),
    added + removed === 0 ? null : h('pre', {}, withContext(lines, bounded ? 3 : Infinity).map(lineOf)),
  );
}

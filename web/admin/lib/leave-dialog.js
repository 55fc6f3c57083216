// "Leave without saving?": a modal like the delete confirmation. Stay is focused first and is what
// Escape does; closing gives the keyboard back to where it was.
import { h } from './dom.js';

/** `{ dialog, ask }`: put `dialog` on the page; `ask()` resolves to true for Leave. `what`: what is lost. */
export function leaveDialog(what) {
  const stay = h('button', { type: 'button' }, 'Stay');
  const leave = h('button', { type: 'button', class: 'danger' }, 'Leave');
  const dialog = h(
    'dialog',
    { 'aria-labelledby': 'leave-title', 'aria-describedby': 'leave-text' },
    h('h2', { id: 'leave-title' }, 'Leave without saving?'),
    h('p', { id: 'leave-text' }, what),
    h('div', { class: 'actions' }, stay, leave),
  );
  // Each answer settles its question at once: a 'close' event arrives later, and a new question
  // asked before it (a second hash change right after Stay) must not take the old answer.
  let pending;
  const settle = (leaving) => {
    const p = pending;
    pending = undefined;
    p?.(leaving);
  };
  stay.addEventListener('click', () => {
    dialog.close('stay');
    settle(false);
  });
  leave.addEventListener('click', () => {
    dialog.close('leave');
    settle(true);
  });
  dialog.addEventListener('cancel', () => settle(false)); // Escape
  dialog.addEventListener('close', () => {
    if (!dialog.open) settle(dialog.returnValue === 'leave');
  });
  let asking;
  const ask = () => {
    if (pending) return asking;
    asking = new Promise((resolve) => {
      pending = resolve;
    });
    dialog.returnValue = '';
    dialog.showModal();
    stay.focus();
    return asking;
  };
  return { dialog, ask };
}

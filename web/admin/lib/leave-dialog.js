// "Leave without saving?": a modal like the delete confirmation. Stay is focused first and is what
// Escape does; closing gives the keyboard back to where it was.
import { h } from '../dom.js';

/** `{ dialog, ask }`: put `dialog` on the page; `ask()` resolves to true for Leave. `what`: what is lost. */
export function leaveDialog(what) {
  const stay = h('button', { type: 'button' }, 'Stay');
  const leave = h('button', { type: 'button', class: 'danger' }, 'Leave');
  const dialog = h('dialog', { 'aria-labelledby': 'leave-title', 'aria-describedby': 'leave-text' },
    h('h2', { id: 'leave-title' }, 'Leave without saving?'),
    h('p', { id: 'leave-text' }, what),
    h('div', { class: 'actions' }, stay, leave));
  stay.addEventListener('click', () => dialog.close('stay'));
  leave.addEventListener('click', () => dialog.close('leave'));
  let asking;
  const ask = () => {
    asking ??= new Promise((resolve) => {
      dialog.addEventListener('close', () => { asking = undefined; resolve(dialog.returnValue === 'leave'); }, { once: true });
      dialog.returnValue = '';
      dialog.showModal();
      stay.focus();
    });
    return asking;
  };
  return { dialog, ask };
}

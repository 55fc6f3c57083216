// "Cancel pending deliveries" on a signal's page: a button shown while any action may still be
// attempted, and a modal confirmation like the trigger's delete. POST /api/signals/<id>/cancel.
import { api, ApiError } from './api.js';
import { announce, h } from './dom.js';

const OPEN = ['waiting', 'pending', 'retrying'];

/** Why a cancel was refused, in words for this page. */
const refusal = (e) =>
  e instanceof ApiError && e.status === 403
    ? 'Your API key may not cancel deliveries (it needs signals:write).'
    : e instanceof ApiError && e.status === 409
      ? `Nothing cancelled: ${e.problem.detail ?? e.message}.`
      : `Not cancelled: ${e.message}`;

/**
 * The button and its dialog for signal `id`. `show(view)` shows the button only while the view
 * has open actions; `cancelled()` runs after a cancel was taken (the page reloads the view).
 */
export function cancelDeliveries(id, cancelled) {
  let open = 0;
  const message = h('div', { role: 'alert', class: 'error', hidden: true });
  const keep = h('button', { type: 'button' }, 'Keep them');
  const confirm = h('button', { type: 'button', class: 'danger' }, 'Cancel deliveries');
  const text = h('p', { id: 'cancel-text' });
  const dialog = h(
    'dialog',
    { 'aria-labelledby': 'cancel-title', 'aria-describedby': 'cancel-text' },
    h('h2', { id: 'cancel-title' }, 'Cancel pending deliveries?'),
    text,
    message,
    h('div', { class: 'actions' }, keep, confirm),
  );
  const button = h('button', { type: 'button', class: 'danger', hidden: true }, 'Cancel pending deliveries');
  button.addEventListener('click', () => {
    message.hidden = true;
    text.textContent =
      `${open} ${open === 1 ? 'delivery' : 'deliveries'} of this signal will not be attempted again. ` +
      'An attempt already on its way may still arrive. You can send them later with a redelivery.';
    dialog.showModal();
    keep.focus();
  });
  keep.addEventListener('click', () => dialog.close());
  confirm.addEventListener('click', async () => {
    confirm.disabled = true;
    try {
      const res = await api('POST', `/api/signals/${encodeURIComponent(id)}/cancel`, { body: {} });
      dialog.close();
      const n = res.body.cancelled.length;
      announce(`Cancelled ${n} ${n === 1 ? 'delivery' : 'deliveries'} of signal ${id}`);
      cancelled();
    } catch (e) {
      message.hidden = false;
      message.textContent = refusal(e);
    } finally {
      confirm.disabled = false;
    }
  });
  return {
    nodes: [button, dialog],
    show: (view) => {
      open = view.actions.filter((a) => OPEN.includes(a.state)).length;
      button.hidden = open === 0;
    },
  };
}

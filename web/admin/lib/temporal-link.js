// Links to a workflow in the Temporal UI (a link only: the admin never fetches from it).
import { h } from './dom.js';

/** The Temporal UI address of a workflow, from the admin's config. */
export const workflowUrl = (config, workflowId) =>
  `${config.temporal_ui_url.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(config.namespace)}/workflows/${encodeURIComponent(workflowId)}`;

/** `<a>` to the workflow, in a new tab; the text says so. */
export const workflowLink = (config, workflowId, text = 'Temporal UI') =>
  h(
    'a',
    { href: workflowUrl(config, workflowId), target: '_blank', rel: 'noopener', class: 'temporal-link' },
    text,
    h('span', { class: 'sr-only' }, ` (workflow ${workflowId}, opens in a new tab)`),
  );

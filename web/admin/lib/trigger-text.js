// How a trigger is named and summed up in the admin's text: by what it watches, and its id.
import { h } from './dom.js';

export const SIGNALS = ['pre_save', 'post_save', 'pre_delete', 'post_delete'];
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export const contentTypesText = (t) => (t.content_types ?? []).map((ct) => `${ct.app_label}.${ct.model_name}`).join(', ');
export const signalsText = (t) => (t.config_signals ?? []).map((s) => s.signal).join(', ');

/** A trigger's name for headings and accessible names: its content types and the start of its id. */
export const triggerName = (t) => `${contentTypesText(t) || 'trigger'} (${String(t.id).slice(0, 8)})`;

/** The entity tag of a version, as the API's ETag and If-Match spell it. */
export const etagOf = (version) => `"${version}"`;

/** A string map (headers, conn_details, parameters) as `key: value` lines. */
export const mapText = (m) =>
  Object.entries(m ?? {})
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');

export const activeBadge = (t) => h('span', { class: t.active ? 'badge badge-on' : 'badge badge-off' }, t.active ? 'active' : 'inactive');

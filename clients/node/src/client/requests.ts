import type { TriggerResource } from './types.ts';

/** What the client's methods take and give, beyond the service's own shapes (types.ts). */

export interface Signal {
  id?: string;
  signal: 'pre_save' | 'post_save' | 'pre_delete' | 'post_delete';
  app_label: string;
  model_name: string;
  instance: Record<string, unknown>;
  /** The instance before the change: what transition conditions (`$changed`) compare with. */
  previous?: Record<string, unknown>;
  occurred_at?: string;
  instance_key?: string;
}
/** What a dry run renders: the signal without a content type (default: the trigger's first). */
export type DryRunSignal = Omit<Signal, 'app_label' | 'model_name'> & Partial<Pick<Signal, 'app_label' | 'model_name'>>;
export interface Accepted {
  id: string;
  workflow_id: string;
  duplicate: boolean;
}
export interface RedeliveryAsk {
  mode: 'as_dispatched' | 'current';
  delivery_ids?: string[];
}
export interface RedeliveredFailed {
  redelivered: number;
  skipped: { busy: number; nothing_left: number; not_stored: number };
  truncated: boolean;
}
export interface ListQuery {
  active?: boolean;
  signal?: string;
  app_label?: string;
  model_name?: string;
  limit?: number;
  cursor?: string;
}
export interface Page {
  items: TriggerResource[];
  nextCursor: string | undefined;
}
export interface HistoryEvent {
  type: string;
  version: number;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
}
export interface HistoryQuery {
  after?: number;
  limit?: number;
}
export interface HistoryPage {
  items: HistoryEvent[];
  nextAfter: number | undefined;
}

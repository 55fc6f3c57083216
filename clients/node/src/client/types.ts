/**
 * What the API sends and takes, as the client sees it: declared here, not imported from the
 * service, so the client ships without it. test/unit/client-types.test.ts checks that the
 * service's own types still fit these.
 */
export type SignalName = 'pre_save' | 'post_save' | 'pre_delete' | 'post_delete';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface Webhook {
  url: string;
  http_method: HttpMethod;
  headers?: Record<string, string>;
  timeout_secs?: number;
  /** A name in the service config's `signing_secrets` (never a secret). */
  signing_secret?: string;
  /** This webhook's own payload, sent instead of the trigger's. */
  payload?: JsonValue;
}
export interface BrokerQueue {
  name: string;
  conn_details?: Record<string, string>;
  parameters?: Record<string, string>;
  timeout_secs?: number;
  /** This queue's own payload, published instead of the trigger's. */
  payload?: JsonValue;
}

/** A trigger as a client defines it. */
export interface TriggerInput {
  config_signals: { signal: SignalName }[];
  content_types: { app_label: string; model_name: string }[];
  webhooks?: Webhook[];
  msg_broker_queues?: BrokerQueue[];
  active: boolean;
  payload?: JsonValue;
  /** When the trigger fires: MongoDB-style operators over `instance.`, `previous.` and `signal.` paths (docs/conditions.md). */
  condition?: Condition | null;
  ordering?: 'none' | 'per_instance';
}

/** A trigger condition: paths to values or operator objects (`$not` among them), and `$and`/`$or`/`$nor` lists. */
export type Condition = { [pathOrOperator: string]: JsonValue };
/** A condition's outcome: held, or the clause that did not and why. */
export type ConditionResult = { held: true } | { held: false; clause: string; detail: string };

/** A trigger as the API shows it. */
export interface TriggerResource
  extends
    Required<Pick<TriggerInput, 'webhooks' | 'msg_broker_queues'>>,
    Omit<TriggerInput, 'webhooks' | 'msg_broker_queues' | 'ordering'> {
  id: string;
  ordering: 'none' | 'per_instance';
  deactivated_reason?: string;
  version: number;
  created_at: string;
  updated_at: string;
}

/** What became of a signal: its dispatch, the triggers it matched and each action's state. */
export interface DispatchView {
  id: string;
  workflow_id: string;
  state: string;
  accepted_at?: string;
  reason?: string;
  not_matched?: Array<{
    trigger_id: string;
    version: number;
    reason: 'inactive' | 'another_signal' | 'condition_false';
    watches?: string[];
    clause?: string;
    detail?: string;
  }>;
  not_matched_truncated?: boolean;
  redeliveries?: Array<{ number: number; workflow_id: string; mode: string; delivery_ids: string[]; requested_at: string }>;
  redelivery_of?: string;
  number?: number;
  mode?: string;
  requested_at?: string;
  triggers: Array<{ trigger_id: string; version: number; instance_key?: string; unordered?: string }>;
  actions: Array<{
    delivery_id: string;
    trigger_id: string;
    version: number;
    kind: string;
    index: number;
    state: string;
    attempts: number;
    status_code?: number;
    last_error?: string;
    warnings: string[];
    /** A cancelled action: who cancelled it (an API key's id) and when. */
    cancelled_by?: string;
    cancelled_at?: string;
    /** Waiting for its destination's limit: why, and until when when that is known. */
    waiting_for?: { reason: 'rate_limited' | 'paused_by_receiver'; until?: string };
  }>;
}

/** What `POST /api/signals/<id>/cancel` ended: each action cancelled, in which dispatch, by whom and when. */
export interface DeliveriesCancelled {
  id: string;
  cancelled: Array<{ delivery_id: string; workflow_id: string }>;
  cancelled_by: string;
  cancelled_at: string;
}

/** What `POST /api/signals/<id>/redeliver` queued: the redelivery's number and the deliveries it sends again. */
export interface RedeliveryQueued {
  id: string;
  workflow_id: string;
  redelivery_of: string;
  number: number;
  mode: string;
  delivery_ids: string[];
  state: 'queued';
}

/** Every request and message a trigger would send for a signal (a dry run), never sent. */
export interface DryRunView {
  trigger_id: string;
  version: number | null;
  signal: { id: string; signal: SignalName; app_label: string; model_name: string; occurred_at: string; instance_key?: string };
  would_dispatch: boolean;
  not_dispatched_reason?: string;
  /** null: the trigger has no condition. */
  condition: ConditionResult | null;
  ordering: 'none' | 'per_instance';
  instance_key?: string;
  unordered?: string;
  varies_per_attempt: string[];
  actions: Array<{
    kind: 'webhook' | 'broker';
    index: number;
    delivery_id: string;
    timeout_secs: number;
    request?: { method: string; url: string; headers: Record<string, string>; body: string | null; content_type: string };
    masked_headers?: string[];
    message?: {
      broker: string;
      broker_type: string;
      conn_details: Record<string, string>;
      parameters: Record<string, string>;
      body: string | null;
      content_type: string;
      delivery_id: string;
    };
    refused?: string;
    error_type?: string;
    retried?: boolean;
    body_omitted?: string;
    /** The config's limit over the action's destination; absent: none. */
    limit?: { name: string; max_per_second?: number; burst?: number; max_in_flight?: number };
    warnings: string[];
  }>;
}

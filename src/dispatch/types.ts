/**
 * Types shared by the workflow, the activities and the API. Pure: the workflow bundle imports
 * this file, so it must not import anything with side effects.
 */

import type { PaceWait } from './pacing';

/** An accepted signal, as the workflow receives it. */
export interface SignalEnvelope {
  id: string;
  signal: 'pre_save' | 'post_save' | 'pre_delete' | 'post_delete';
  app_label: string;
  model_name: string;
  instance: Record<string, unknown>;
  occurred_at: string;
  /** Which instance the signal is about, for triggers that deliver in order per instance (else `instance.pk`, `instance.id`). */
  instance_key?: string;
  /** The instance before the change, when the emitter sent it (conditions compare with it; templates read it). */
  previous?: Record<string, unknown>;
}

export interface RetrySettings {
  initialIntervalSecs: number;
  backoffCoefficient: number;
  maxIntervalSecs: number;
  maxAttempts: number;
}

export interface DispatchInput {
  signal: SignalEnvelope;
  retry: RetrySettings;
  /** The matching triggers and their actions, found by the API when it accepted the signal. */
  plan: DispatchPlan;
  /**
   * How the actions are attempted, decided by the client: `local-first`, each first attempt a
   * local activity and the rest regular ones, every attempt checking the delivered ledger before
   * it sends; `batched`, the first attempts of the actions together in a few activities (each
   * sending its actions at once and recording each delivery in the ledger), the rest regular
   * activities; `activities`, every attempt a regular activity (no client starts these: the
   * fan-out benchmark's baseline).
   */
  attemptsAs: AttemptsAs;
  /** For a redelivery: the workflow it redelivers (the signal's own) and how it was planned. */
  redeliveryOf?: { workflowId: string; mode: RedeliveryMode };
  /**
   * Set by clients since failed dispatches are findable: the workflow then sets `FailedTriggerIds`
   * when an action fails for good. Absent in older dispatches, whose histories have no such upsert.
   */
  marksFailed?: true;
  /** The id of the request that accepted the signal: each attempt's log lines carry it. Absent in older dispatches. */
  requestId?: string;
  /** Its turns in its instance orders, kept in our store (src/ordering/turns.ts). Absent in those with no order. */
  turns?: DispatchTurns;
}

/**
 * `position`: the signal's store position, its place in each order; `given`: the `per_instance`
 * triggers whose turn was already this dispatch's when the relay queued it (they go at once);
 * `checkSecs`: how long a waiting one waits before it looks for a dispatch before it that closed
 * without ending its turn (default 300; tests set it short).
 */
export interface DispatchTurns {
  position: string;
  given: string[];
  checkSecs?: number;
}

/** `as_dispatched`: the trigger versions the original recorded; `current`: those triggers as they are now. */
export type RedeliveryMode = 'as_dispatched' | 'current';

export type AttemptsAs = 'activities' | 'local-first' | 'batched';

export interface DispatchPlan {
  triggers: MatchedTrigger[];
  actions: ActionPlan[];
}

export type ActionKind = 'webhook' | 'broker';

/** One action to run. Only references: the activity reads the definition at `version` itself. */
export interface ActionPlan {
  deliveryId: string;
  triggerId: string;
  version: number;
  kind: ActionKind;
  /** Index within the trigger's `webhooks` or `msg_broker_queues`. */
  index: number;
  timeoutSecs: number;
  /** The key of its destination's limit (`webhook:<name>`, `broker:<name>`) when the config set one at planning; absent: none. */
  pace?: string;
}

/**
 * `ordering: "per_instance"`: the instance and the workflow that gives this trigger's dispatches
 * for it their turns, or why this signal's actions go out without waiting (no instance key).
 */
export type TriggerOrdering = { instanceKey: string; orderWorkflowId: string } | { unordered: string };

/** `ordering`: only for a trigger with `ordering: "per_instance"` (absent in dispatches planned before). */
export interface MatchedTrigger {
  triggerId: string;
  version: number;
  ordering?: TriggerOrdering;
}

export interface DeliveryReceipt {
  statusCode?: number;
  attempt: number;
  /** Render warnings, e.g. missing instance attributes; never resolved values. */
  warnings: string[];
  /** The attempt also ended its dispatch's turn in an instance order (ActionArgs.endsTurn). */
  turnEnded?: true;
  /**
   * Nothing was sent: the destination's limit held the attempt back, its slot at sending reserved
   * for then (epoch ms). Not a failure: the workflow waits for it and tries again, not counted.
   */
  heldUntil?: number;
  /** `heldUntil` is a slot at sending reserved for the attempt (else the end of a receiver's pause: it reserves anew). */
  slotReserved?: true;
}

/** What one batch of first attempts receives: the actions, the signal, the retry schedule. */
export interface FirstAttemptsArgs {
  plans: ActionPlan[];
  signal: SignalEnvelope;
  retry: RetrySettings;
  requestId?: string;
}

/** What the first attempt of one action of a batch came to. */
export type FirstAttempt =
  | { deliveryId: string; receipt: DeliveryReceipt }
  | { deliveryId: string; failed: { message: string; details: FailureDetails; retryable: boolean } };

/**
 * `retrying`: the first attempt failed and the next waits for its time. `waiting`: its trigger
 * delivers in order per instance, and an earlier signal's actions have not ended. `cancelled`:
 * someone cancelled it before it ended (`cancelled` says who and when); nothing is attempted after.
 */
export type ActionState = 'waiting' | 'pending' | 'retrying' | 'delivered' | 'failed' | 'cancelled';

/** The states in which an action may still be attempted: the ones a cancel ends. */
export const OPEN_ACTION_STATES: readonly ActionState[] = ['waiting', 'pending', 'retrying'];

/** Who cancelled an action (an API key's id, or `anonymous` in open mode) and when (ISO time). */
export interface Cancellation {
  by: string;
  at: string;
}

/**
 * A cancel sent to a running dispatch: these of its actions (all, without `deliveryIds`), by whom,
 * when. `attemptsSeen`: each action's attempts as the asker saw them (Temporal counts the retries
 * of a running activity; the workflow learns them only when it ends, which a cancel forestalls).
 */
export interface CancelAsk extends Cancellation {
  deliveryIds?: string[];
  attemptsSeen?: Record<string, number>;
}

export interface ActionOutcome {
  deliveryId: string;
  triggerId: string;
  version: number;
  kind: ActionKind;
  index: number;
  state: ActionState;
  attempts: number;
  statusCode?: number;
  lastError?: string;
  warnings: string[];
  cancelled?: Cancellation;
  /** While `waiting` for its destination's limit (not for a turn): why, and until when. */
  waitingFor?: PaceWait;
}

export interface DispatchStatus {
  signalId: string;
  state: 'matching' | 'running' | 'completed';
  triggers: MatchedTrigger[];
  actions: ActionOutcome[];
}

/** Details an activity attaches to its failures, so the workflow can show attempts and status. */
export interface FailureDetails {
  attempt: number;
  statusCode?: number;
  /** The wait the activity asks for before the next attempt (Retry-After or backoff). */
  retryDelayMs?: number;
  /**
   * A paced destination's receiver asked for a pause (429 or 503 with Retry-After): the whole
   * destination waits until then (epoch ms), and the attempt does not count against the budget.
   */
  pausedUntil?: number;
}

export const workflowIdOf = (signalId: string) => `signal-${signalId}`;
/** `/` is not allowed in signal ids, so no signal's own workflow id looks like a redelivery's. */
export const redeliveryWorkflowIdOf = (signalId: string, n: number) => `${workflowIdOf(signalId)}/redelivery-${n}`;
/** The signal id of a dispatch's workflow id (its own or a redelivery's). */
export const signalIdOfWorkflow = (workflowId: string) => workflowId.replace(/^signal-/, '').replace(/\/redelivery-\d+$/, '');
export const deliveryIdOf = (signalId: string, triggerId: string, kind: ActionKind, index: number) =>
  `${signalId}.${triggerId}.${kind === 'webhook' ? 'w' : 'q'}${index}`;

/**
 * What one attempt of one action came to. Every channel (the webhook, each publisher) ends its
 * attempt with one of these; `runAttempt` (src/delivery/attempt.ts) alone turns it into what Temporal reads.
 * A reason may quote what a broker or client said, which may echo a rendered value: `runAttempt`
 * masks it (src/delivery/secret-mask.ts) before anything reads it.
 */
export type Attempt =
  | { outcome: 'delivered'; statusCode?: number }
  | { outcome: 'retry'; errorType: AttemptErrorType; reason: string; statusCode?: number; retryAfterMs?: number }
  | { outcome: 'fail'; errorType: AttemptErrorType; reason: string; statusCode?: number };

/** Why an attempt did not deliver, one word each: the failure's type in the history, a signal's `error_type`. */
export const ATTEMPT_ERROR_TYPES = [
  /** The trigger's version has no such action (or no longer exists). */
  'ActionMissing',
  /** A dynamic value could not be resolved (retried: it may appear). */
  'DynamicValue',
  /** The rendered values would pass the size limit. */
  'RenderTooLarge',
  /** Today's webhook_url_patterns refuse the URL. */
  'WebhookUrlRefused',
  /** A rendered header cannot be sent. */
  'WebhookHeader',
  /** The webhook's signing secret is not in today's config, or all its secrets expired. */
  'SigningSecret',
  /** The receiver answered with a status other than 2xx. */
  'WebhookStatus',
  /** No answer: connection failed or timed out. */
  'WebhookUnreachable',
  /** The SSRF guard refused the target. */
  'TargetRefused',
  /** The broker is not in the config, or its type is not in this build. */
  'BrokerMissing',
  /** The trigger sets a key the broker's trigger_overrides no longer allows. */
  'BrokerOverrideRefused',
  /** The merged, rendered settings miss a key or hold a bad one. */
  'BrokerParameters',
  /** The broker did not take the message. */
  'BrokerUnavailable',
  /** The destination refused this call for good (e.g. a Lambda function that does not exist): not retried. */
  'BrokerRefused',
] as const;
export type AttemptErrorType = (typeof ATTEMPT_ERROR_TYPES)[number];

import type { ActionKind, ActionPlan, Attempt, AttemptErrorType } from '../../dispatch/types';
import type { JsonValue } from '../../kernel/json-value';

/**
 * What every destination's channel is given and gives back: the action ready to send, and one
 * `Attempt`. The attempt pipeline (activities/delivery) prepares an action the same way for
 * every destination and hands it to the channel of its kind.
 */

/**
 * The parts of a trigger's definition its actions are read from. Each list holds what its
 * destination's codec accepted when the trigger was written; the channel of that kind reads it.
 */
export interface ActionLists {
  readonly webhooks: readonly unknown[];
  readonly msg_broker_queues: readonly unknown[];
  readonly payload?: JsonValue;
}

/** An entry that may hold its own payload (a webhook, a queue). */
export interface OwnPayload {
  readonly payload?: JsonValue;
}

/** The payload an action renders: its entry's own replaces the trigger's (never merged); none there, the trigger's. */
export const payloadOf = (definition: ActionLists, entry: OwnPayload): JsonValue | undefined => entry.payload ?? definition.payload;

/** A rendered body: the bytes an action sends (its entry's payload, else the trigger's, rendered). */
export interface Rendered {
  body: string;
  contentType: 'application/json' | 'text/plain; charset=utf-8';
  /** Missing instance attributes, by path; never values. */
  warnings: string[];
}

/** Ends an attempt from inside a step (preparing, rendering, building the request) with a known outcome. */
export class AttemptEnded extends Error {
  constructor(readonly attempt: Exclude<Attempt, { outcome: 'delivered' }>) {
    super(attempt.reason);
    this.name = 'AttemptEnded';
  }
}

export const fail = (errorType: AttemptErrorType, reason: string) => new AttemptEnded({ outcome: 'fail', errorType, reason });
export const retry = (errorType: AttemptErrorType, reason: string) => new AttemptEnded({ outcome: 'retry', errorType, reason });

/** An action ready to send: its entry, the rendered body, and a renderer for its string maps. */
export interface Prepared<T> {
  readonly plan: ActionPlan;
  readonly definition: ActionLists;
  readonly action: T;
  readonly rendered: Rendered;
  /** Renders a string map (headers, conn_details, parameters) with this attempt's values. */
  readonly renderMap: (map: Record<string, string> | undefined) => Record<string, string>;
  /** This attempt's number across the whole action. */
  readonly attempt: number;
}

/** How one kind of action finds its entry, what of it holds templates, and how it is sent. */
export interface Channel<T> {
  readonly kind: ActionKind;
  /** The action's entry in the definition, or undefined when there is none. */
  pick(definition: ActionLists, index: number): T | undefined;
  /** The payload the action renders: its entry's own, else the trigger's (undefined: the signal's envelope). */
  payload(definition: ActionLists, action: T): JsonValue | undefined;
  /** Checks that need no values (may throw AttemptEnded); returns the values holding templates, the payload among them. */
  templated(definition: ActionLists, action: T): unknown[];
  send(prepared: Prepared<T>): Promise<Attempt>;
}

/** A channel's entries without its sending: what preparing an action (and a dry run) needs. */
export type Entries<T> = Omit<Channel<T>, 'send'>;

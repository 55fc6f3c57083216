/**
 * Every bound one request, trigger or signal can reach, in one place. Each protects the
 * service from one bad input: a stack overflow, a workflow over Temporal's 2 MB payload
 * limit, a response of hundreds of megabytes. docs/operations.md § Limits documents them.
 */

/** Nesting depth of any JSON request body (objects and arrays), checked right after parsing. */
export const MAX_JSON_DEPTH = 32;

/** Object keys refused anywhere in a request body: they reach prototypes, never data. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** A trigger's definition, as JSON text. */
export const MAX_TRIGGER_BYTES = 256 * 1024;
export const MAX_WEBHOOKS_PER_TRIGGER = 100;
export const MAX_QUEUES_PER_TRIGGER = 100;

/** One signal (its JSON text, instance included): it is part of its workflow's input. */
export const MAX_SIGNAL_BYTES = 256 * 1024;

/**
 * Actions one signal may start. Each action's outcome is in the workflow's state and result,
 * which Temporal caps at 2 MB: 500 outcomes with their bounded texts stay well below.
 */
export const MAX_ACTIONS_PER_DISPATCH = 500;
/**
 * Dispatches with at most this many actions try each first attempt as a local activity, inside
 * the workflow task that starts them (no activity task, no second workflow task). More would
 * keep one workflow task open for many sends; those use regular activities from the start.
 */
export const MAX_LOCAL_FIRST_ATTEMPTS = 10;
/**
 * Larger dispatches send their first attempts in batches of at most this many actions, each batch
 * one activity (a 50-webhook signal: one activity instead of 50).
 */
export const FIRST_ATTEMPT_BATCH = 50;
/** First attempts one worker sends at once over all its batches; the rest wait for a slot. */
export const FIRST_ATTEMPT_CONCURRENCY = 200;
/** Redeliveries one signal may have: each is an event on its stream and a line of its status. */
export const MAX_REDELIVERIES_PER_SIGNAL = 100;
/** Dispatches one `redeliver-failed` request redelivers at most; the answer says when more matched. */
export const MAX_BULK_REDELIVERIES = 500;
/** How many signals `redeliver-failed` redelivers at once (each asks Temporal for its dispatches). */
export const BULK_REDELIVERY_CONCURRENCY = 8;
/** Render warnings kept per action, and the length of each kept text. */
export const MAX_WARNINGS_PER_ACTION = 5;
export const MAX_OUTCOME_TEXT = 300;

/** A page of `GET /api/action-triggers` (and of a trigger's history and the audit feed: their items' JSON array, src/kernel/bounded-page.ts) stops before this many bytes (always at least one item). */
export const MAX_LIST_PAGE_BYTES = 4 * 1024 * 1024;

/**
 * How long a write waits for its read model to hold it (so the client's next read sees it) before
 * answering anyway, from its own command's state: a write never answers 503 for a slow read model.
 */
export const READ_MODEL_WAIT_MS = 5000;

/**
 * Characters the template values substituted into one rendering (an action's body, or one of
 * its header or parameter maps) may add: `{{ instance }}` 2,000 times over a 200 KB instance
 * made a 400 MB body. Beyond it the action fails for good (it would on every retry).
 */
export const MAX_RENDERED_CHARS = 4 * 1024 * 1024;

/**
 * Characters of bodies one dry run (`POST /api/action-triggers/<id>/test`) shows, all actions
 * together: up to 200 actions of up to MAX_RENDERED_CHARS each would be a response of 800 MB.
 * Bodies past it are left out, and the answer says so.
 */
export const MAX_DRY_RUN_BODY_CHARS = 8 * 1024 * 1024;

/**
 * The live audit feed (`GET /api/events/stream`). Ten streams of a backlog of 240 KiB
 * definitions each read it whole (1,000 events a batch) and queued it for clients that never
 * read: 1.7 GB, then out of memory. Now a stream reads at most EVENT_STREAM_READ_BYTES of event
 * data at a time, sends it with back-pressure (nothing more is read until its socket took the
 * last event), and drops a client that takes nothing for EVENT_STREAM_STALL_MS.
 */
export const EVENT_STREAM_READ_BYTES = 1024 * 1024;
export const EVENT_STREAM_STALL_MS = 30_000;
/**
 * Event text all streams of one process hold together (read, not yet taken by their sockets):
 * a stream reads its next batch only when it fits, and waits otherwise (its client sees a
 * pause, never an error). New streams are not refused for it (MAX_EVENT_STREAMS bounds them).
 */
export const EVENT_STREAMS_MAX_BYTES = 64 * 1024 * 1024;
/** Streams one process serves at once; one more is 503 with Retry-After. */
export const MAX_EVENT_STREAMS = 100;

/**
 * A trigger's `condition` (docs/conditions.md): it is evaluated for every signal the trigger
 * watches, in the request that accepts the signal, so each bound keeps that work small.
 */
export const CONDITION_MAX_DEPTH = 8;
export const CONDITION_MAX_COMPARISONS = 64;
export const CONDITION_MAX_PATH_SEGMENTS = 16;
export const CONDITION_MAX_LIST = 100;
export const CONDITION_MAX_BYTES = 16 * 1024;
/**
 * Bytes of a destination's answer the worker reads: it uses none of an answer but a status, an
 * error code or an id. A Lambda API that is not AWS answering 160 MB took a worker from 225 to
 * 580 MB. Past the bound the connection is closed (webhooks, AWS) or the call fails (Pub/Sub's
 * gRPC, whose client had lifted gRPC's own 4 MiB limit).
 */
export const MAX_WEBHOOK_ANSWER_BYTES = 64 * 1024;
export const MAX_BROKER_ANSWER_BYTES = 1024 * 1024;

/**
 * Steps a condition's evaluation may take (a value read or compared, a key of an object listed:
 * src/model/conditions/budget.ts), and all of one signal's conditions together. A legal
 * condition compared with a signal's object of 12,000 keys listed them on every comparison: one
 * signal held the API for seconds. At 50–100 ns a step, one signal's matching holds the event
 * loop for at most ~10–20 ms (a request yields between signals), and one costly trigger cannot
 * spend what the others need. Past either, a condition is false ("too costly to evaluate").
 */
export const MATCH_STEPS_PER_CONDITION = 50_000;
export const MATCH_STEPS_PER_SIGNAL = 200_000;

import { Client, WorkflowNotFoundError } from '@temporalio/client';
import type { GiveTurn } from '../dispatch/ordering';
import { turnSignal } from '../dispatch/ordering';

const NOT_FOUND = 5; // gRPC status: a client over the worker's native connection may report it bare

/** Temporal's "no such workflow" (not started, or closed when signalled), however the client reports it. */
export const workflowNotFound = (e: unknown) => e instanceof WorkflowNotFoundError || (e as { code?: unknown }).code === NOT_FOUND;

/**
 * Tells a dispatch it is its turn, through `client`. Temporal answers "not found" both for a
 * workflow not started yet and for one that closed: describing it tells which (one that started
 * in between is told again). Other errors throw: the caller tries again.
 */
export const giveTurnThrough =
  (client: Client): GiveTurn =>
  async (workflowId, triggerId) => {
    const handle = client.workflow.getHandle(workflowId);
    for (;;) {
      try {
        await handle.signal(turnSignal, triggerId);
        return 'given';
      } catch (e) {
        if (!workflowNotFound(e)) throw e;
      }
      try {
        if ((await handle.describe()).status.name !== 'RUNNING') return 'closed';
      } catch (e) {
        if (workflowNotFound(e)) return 'not-started';
        throw e;
      }
    }
  };

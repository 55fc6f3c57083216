import type { NativeConnection } from '@temporalio/worker';

/**
 * The workflow shapes this code no longer runs (docs/decisions.md, "Retiring a workflow shape"):
 * the `instanceOrder` workflows that ordered deliveries per instance before turns were kept in our
 * store, and dispatches started before their input carried their plan, how their attempts run and
 * their turns (all three since 2026-11-28, 07:00 UTC).
 */
const RETIRED = "(WorkflowType = 'instanceOrder' OR (WorkflowType = 'dispatchSignal' AND StartTime < '2026-11-28T07:00:00Z'))";

/** Names shown at most in the refusal: enough to find them, short enough to read. */
const SHOWN = 5;

/** A worker that would meet a workflow it cannot replay: it refuses to start. */
export class RetiredShapesOpen extends Error {
  constructor(count: number, ids: string[]) {
    super(
      `${count} workflow(s) of a retired shape still open on this task queue (${ids.join(', ')}${count > ids.length ? ', …' : ''}): ` +
        'this release cannot run them. Let the previous release finish them, or cancel or terminate them, then start this one',
    );
    this.name = 'RetiredShapesOpen';
  }
}

/** Throws RetiredShapesOpen when the namespace's visibility shows such a workflow open on `taskQueue`. */
export const refuseRetiredShapes = async (connection: NativeConnection, namespace: string, taskQueue: string): Promise<void> => {
  const query = `TaskQueue = '${taskQueue.replace(/'/g, "\\'")}' AND ExecutionStatus = 'Running' AND ${RETIRED}`;
  const { count } = await connection.workflowService.countWorkflowExecutions({ namespace, query });
  const open = Number(count ?? 0);
  if (open === 0) return;
  const page = await connection.workflowService.listWorkflowExecutions({ namespace, query, pageSize: SHOWN });
  throw new RetiredShapesOpen(
    open,
    (page.executions ?? []).map((e) => e.execution?.workflowId ?? '?'),
  );
};

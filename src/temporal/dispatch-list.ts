import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Timestamp } from '@temporalio/common';
import { signalIdOfWorkflow } from '../dispatch/types';
import { FailedTriggerIds, TriggerIds } from '../dispatch/search-attributes';

/** One dispatch of a trigger as the list shows it: what Temporal's visibility knows, without its history. */
export interface DispatchSummary {
  workflow_id: string;
  signal_id: string;
  /** For a redelivery: the workflow id of the signal's own dispatch. */
  redelivery_of?: string;
  /** Temporal's status: running, completed, terminated, … */
  state: string;
  started_at: string;
  closed_at?: string;
  /** An action of this trigger failed for good in it. */
  failed: boolean;
}

/** What visibility says of one workflow: Temporal's status, and whether any action failed for good in it. */
export interface DispatchState {
  state: string;
  failed: boolean;
  closed_at?: string;
}

/**
 * The states of up to 100 dispatches by workflow id, in one visibility call; a workflow
 * visibility does not (yet, or any longer) know is missing from the map.
 */
export const dispatchStatesOf = async (client: Client, workflowIds: readonly string[]): Promise<Map<string, DispatchState>> => {
  const states = new Map<string, DispatchState>();
  if (workflowIds.length === 0) return states;
  // Signal ids are [A-Za-z0-9._:-] (src/model/signals/codecs.ts): nothing to escape inside the quotes.
  const res = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    pageSize: workflowIds.length,
    query: `WorkflowId IN (${workflowIds.map((id) => `'${id}'`).join(', ')})`,
  });
  for (const e of res.executions ?? []) {
    const closed = optionalTsToDate(e.closeTime);
    states.set(e.execution?.workflowId ?? '', {
      state: stateOf(e.status),
      failed: keywordsOf(e.searchAttributes?.indexedFields?.[FailedTriggerIds.name]).length > 0,
      ...(closed ? { closed_at: closed.toISOString() } : {}),
    });
  }
  return states;
};

/**
 * A protobuf timestamp as a Date (to the millisecond, nanos rounded down); undefined when absent.
 * What the SDK's internal `optionalTsToDate` does, without a deep import.
 */
const optionalTsToDate = (ts: Timestamp | null | undefined): Date | undefined =>
  ts == null ? undefined : new Date((ts.seconds?.toNumber() ?? 0) * 1000 + Math.floor((ts.nanos ?? 0) / 1_000_000));

export interface DispatchPage {
  items: DispatchSummary[];
  nextPageToken: Uint8Array | undefined;
}

const Status = temporal.api.enums.v1.WorkflowExecutionStatus;
const stateOf = (code: number | null | undefined) =>
  (Status[code ?? 0] ?? 'UNSPECIFIED').replace('WORKFLOW_EXECUTION_STATUS_', '').toLowerCase();

/** The keyword list a search attribute holds, decoded from its payload (JSON). */
const keywordsOf = (payload: temporal.api.common.v1.IPayload | null | undefined): string[] => {
  try {
    return payload?.data ? (JSON.parse(Buffer.from(payload.data).toString('utf8')) as string[]) : [];
  } catch {
    return [];
  }
};

/**
 * The dispatches (signals' own and redeliveries) whose `TriggerIds` hold the trigger, newest
 * first (visibility's order), a page at a time. A trigger matched by more than ~51 triggers'
 * worth of ids may be missing from `TriggerIds` (src/dispatch/search-attributes.ts).
 */
export const listDispatchesOf = async (
  client: Client,
  triggerId: string,
  pageSize: number,
  pageToken: Uint8Array | undefined,
): Promise<DispatchPage> => {
  const res = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    query: `${TriggerIds.name} = '${triggerId}'`,
    pageSize,
    ...(pageToken ? { nextPageToken: pageToken } : {}),
  });
  const items = (res.executions ?? []).map((e): DispatchSummary => {
    const workflowId = e.execution?.workflowId ?? '';
    const signalId = signalIdOfWorkflow(workflowId);
    const closed = optionalTsToDate(e.closeTime);
    return {
      workflow_id: workflowId,
      signal_id: signalId,
      ...(workflowId.includes('/redelivery-') ? { redelivery_of: `signal-${signalId}` } : {}),
      state: stateOf(e.status),
      started_at: (optionalTsToDate(e.startTime) ?? new Date(0)).toISOString(),
      ...(closed ? { closed_at: closed.toISOString() } : {}),
      failed: keywordsOf(e.searchAttributes?.indexedFields?.[FailedTriggerIds.name]).includes(triggerId),
    };
  });
  return { items, nextPageToken: res.nextPageToken && res.nextPageToken.length > 0 ? res.nextPageToken : undefined };
};

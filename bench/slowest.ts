import { Client, Connection } from '@temporalio/client';

/** Milliseconds of a history event's time. */
const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  t ? Number(t.seconds) * 1000 + (t.nanos ?? 0) / 1e6 : NaN;

export interface Delivered {
  id: string;
  acceptedAt: number;
  receivedAt: number;
}

/**
 * Where the slowest deliveries spent their time, from their histories: accept → workflow
 * started (the relay and the start call), started → first workflow task started (eager: 0),
 * task started → receipt (activation, the local attempt, the request), receipt → task completed.
 */
export const slowestStages = async (address: string, delivered: Delivered[], count: number): Promise<string[]> => {
  const slowest = [...delivered].sort((a, b) => b.receivedAt - b.acceptedAt - (a.receivedAt - a.acceptedAt)).slice(0, count);
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    const rows = await Promise.all(
      slowest.map(async (d) => {
        const events = (await client.workflow.getHandle(`signal-${d.id}`).fetchHistory()).events ?? [];
        const started = ms(events[0]?.eventTime);
        const taskStarted = ms(events.find((e) => e.workflowTaskStartedEventAttributes)?.eventTime);
        const taskDone = ms(events.find((e) => e.workflowTaskCompletedEventAttributes)?.eventTime);
        const r = (x: number) => (Number.isFinite(x) ? Math.round(x) : '?');
        return `| ${d.acceptedAt % 100_000} | ${r(d.receivedAt - d.acceptedAt)} | ${r(started - d.acceptedAt)} | ${r(taskStarted - started)} | ${r(d.receivedAt - taskStarted)} | ${r(taskDone - d.receivedAt)} |`;
      }),
    );
    return [
      '| accepted (ms mod 100 s) | total | accept → started | → task started | → receipt | receipt → task completed |',
      '|---:|---:|---:|---:|---:|---:|',
      ...rows,
    ];
  } finally {
    await connection.close();
  }
};

import { allHandlersFinished, condition, continueAsNew, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import { doneSignal, enqueueSignal, InstanceOrderInput } from '../dispatch/ordering';
import { sendOrderSignal } from './order-signals';

/** Ids of dispatches already handled, kept across runs so a relay that enqueues one again (after a take-over) does not send it a second turn. */
const REMEMBERED = 2000;
/** A new run before the history grows long (each dispatch costs ~6 events here), unless the input says otherwise. */
const EVENTS_PER_RUN = 4000;
/**
 * The run's one clock: a timer per turn or per empty queue would be a Temporal action per
 * delivery. A run ends after 2–3 ticks with nothing queued (the next enqueue starts a new one).
 */
const TICK = '1 minute';
const IDLE_TICKS = 2;
/**
 * After this many ticks without an answer the dispatch whose turn it is hears it again: a turn lost
 * with a dispatch reset by an operator, or one that closed without answering, is noticed.
 */
const TURN_AGAIN_TICKS = 5;

/**
 * The order of one trigger's dispatches for one instance (workflow id `ordered-<trigger>-<key>`),
 * as it ran before turns were kept in our store (in-order.ts): kept so that orders and
 * dispatches started then run to their end, and their histories replay. The relay enqueued each
 * dispatch in the order the store accepted its signal; each in turn is told to send the
 * trigger's actions, and the next waits until it says they ended (delivered or failed for
 * good). A dispatch that no longer runs cannot answer: the next one goes.
 */
export async function instanceOrder(input: InstanceOrderInput): Promise<void> {
  const queue = [...input.queue];
  const remembered = [...input.remembered];
  const known = new Set([...queue, ...remembered]);
  const done = new Set<string>();
  setHandler(enqueueSignal, (ids) => {
    for (const workflowId of typeof ids === 'string' ? [ids] : ids) {
      if (known.has(workflowId)) continue;
      known.add(workflowId);
      queue.push(workflowId);
    }
  });
  // Only the dispatch whose turn it is counts; a late answer of one before it is ignored.
  setHandler(doneSignal, (workflowId) => {
    if (queue[0] === workflowId) done.add(workflowId);
  });

  let ticks = 0;
  void (async () => {
    for (;;) {
      await sleep(TICK);
      ticks++;
    }
  })();

  // Each run hands at least one turn on, so a flood of enqueues cannot make runs that do nothing else.
  let handled = 0;
  const eventsPerRun = input.eventsPerRun ?? EVENTS_PER_RUN;
  while (handled === 0 || (workflowInfo().historyLength < eventsPerRun && !workflowInfo().continueAsNewSuggested)) {
    if (queue.length === 0) {
      const since = ticks;
      await condition(() => queue.length > 0 || ticks >= since + IDLE_TICKS);
      if (queue.length === 0) {
        await condition(allHandlersFinished);
        if (queue.length === 0) return;
      }
      continue;
    }
    const head = queue[0]!;
    for (let answered = false; !answered;) {
      // False: closed (or never started), it sends nothing more.
      if (!(await sendOrderSignal(input.signalsBy, { workflowId: head, signal: 'turn', arg: input.triggerId }))) break;
      const told = ticks;
      await condition(() => done.has(head) || ticks >= told + TURN_AGAIN_TICKS);
      answered = done.has(head);
    }
    queue.shift();
    handled++;
    done.delete(head);
    remembered.push(head);
    if (remembered.length > REMEMBERED) remembered.splice(0, remembered.length - REMEMBERED);
  }
  await condition(allHandlersFinished);
  await continueAsNew<typeof instanceOrder>({ ...input, queue, remembered });
}

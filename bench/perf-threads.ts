import { readFileSync } from 'node:fs';

/**
 * Reads `perf script -F tid,ip,sym` of the service (bench/perf-record.sh) and prints, per
 * thread, its share of samples; then, for the Temporal SDK's workflow thread (the thread whose
 * stacks hold @temporalio/worker/lib/workflow/workflow-worker-thread.js), where its time goes: each sample is charged to the
 * first bucket whose test matches a frame, walking from the leaf towards the root.
 * Usage: npx ts-node --transpile-only bench/perf-threads.ts <script.txt>
 */
type Sample = { tid: number; frames: string[] };

const parse = (text: string): Sample[] => {
  const samples: Sample[] = [];
  let current: Sample | undefined;
  for (const line of text.split('\n')) {
    if (!line.trim()) {
      if (current) samples.push(current);
      current = undefined;
      continue;
    }
    if (/^\s*\d+\s*$/.test(line)) {
      current = { tid: Number(line.trim()), frames: [] };
      continue;
    }
    current?.frames.push(line.trim().split(' ').slice(1).join(' '));
  }
  if (current) samples.push(current);
  return samples;
};

const BUCKETS: Array<[string, (frame: string) => boolean]> = [
  ['promise hook: Error.prepareStackTrace (frames, source map)', (f) => f.includes('Error.prepareStackTrace')],
  ['promise hook: stack capture (native)', (f) => /CaptureAndSetErrorStack|ErrorStackGetter|FormatStackTrace/.test(f)],
  ['promise hook: rest (activator lookup by new Function, regexps, maps)', (f) => /vm-shared\.js:(246|291)/.test(f)],
  ['vm watchdog per call (isolateExecutionTimeout)', (f) => f.includes('Watchdog') || f.includes('CheckedUvLoopClose')],
  ['globals swap between workflows (__TEMPORAL_CALL_INTO_SCOPE)', (f) => f.includes('__TEMPORAL_CALL_INTO_SCOPE')],
  ['GC', (f) => /Heap::CollectGarbage|Scaveng|MinorGCJob|MarkCompact/.test(f)],
  ['activation message (de)serialisation', (f) => /ValueDeserializer|ValueSerializer|Message::(De)?[Ss]erialize/.test(f)],
  ['workflow modules evaluated per workflow (__webpack_require__)', (f) => f.includes('__webpack_require__')],
  ['our workflow code (dispatchSignal and below)', (f) => f.includes('dispatchSignal')],
  ['SDK workflow runtime inside the sandbox', (f) => f.includes('workflow-bundle')],
  ['SDK outside the sandbox', (f) => f.includes('@temporalio')],
];

const percent = (n: number, of: number) => `${((100 * n) / of).toFixed(1)} %`;

const main = () => {
  const samples = parse(readFileSync(process.argv[2]!, 'utf8'));
  const byThread = new Map<number, number>();
  for (const s of samples) byThread.set(s.tid, (byThread.get(s.tid) ?? 0) + 1);
  const workflowTids = new Set(samples.filter((s) => s.frames.some((f) => f.includes('workflow-worker-thread'))).map((s) => s.tid));
  console.log(`${samples.length} samples\n\n| thread | share |\n|---|---:|`);
  for (const [tid, n] of [...byThread].sort((a, b) => b[1] - a[1]).slice(0, 10)) {
    console.log(`| ${tid}${workflowTids.has(tid) ? ' (workflow thread)' : ''} | ${percent(n, samples.length)} |`);
  }
  const workflow = samples.filter((s) => workflowTids.has(s.tid));
  const charged = new Map<string, number>();
  for (const { frames } of workflow) {
    let bucket: string | undefined;
    for (const f of frames) {
      bucket = BUCKETS.find(([, test]) => test(f))?.[0];
      if (bucket) break;
    }
    const name = bucket ?? 'other (kernel, scheduling, allocation)';
    charged.set(name, (charged.get(name) ?? 0) + 1);
  }
  console.log(`\nWorkflow thread: ${workflow.length} samples\n\n| where | share |\n|---|---:|`);
  for (const [name, n] of [...charged].sort((a, b) => b[1] - a[1])) console.log(`| ${name} | ${percent(n, workflow.length)} |`);
};

main();

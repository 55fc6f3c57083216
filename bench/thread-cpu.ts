import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds of each thread of a process, from /proc (Linux): tid → name and seconds. */
export const threadCpu = (pid: number): Map<string, { name: string; seconds: number }> => {
  const threads = new Map<string, { name: string; seconds: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // utime and stime are fields 14 and 15; the name in parentheses may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.set(tid, {
        name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
        seconds: (Number(fields[11]) + Number(fields[12])) / 100,
      });
    } catch {
      /* the thread ended between the listing and the read (a vm watchdog) */
    }
  }
  return threads;
};

/**
 * Per delivery, busiest first: the main thread; each other thread named `node` (the SDK's
 * workflow thread(s) and V8's platform threads for GC and optimising compilation: tell them
 * apart with perf); threads of other names summed by name (`tokio-runtime-w`: the Temporal core).
 */
export const threadRows = (pid: number, before: ReturnType<typeof threadCpu>, after: ReturnType<typeof threadCpu>, deliveries: number) => {
  const sums = new Map<string, number>();
  for (const [tid, { name, seconds }] of after) {
    const label = String(pid) === tid ? `${tid} (main)` : name === 'node' ? `${tid} (node)` : name;
    sums.set(label, (sums.get(label) ?? 0) + seconds - (before.get(tid)?.seconds ?? 0));
  }
  return [...sums]
    .map(([label, seconds]) => ({ label, ms: (seconds * 1000) / deliveries }))
    .filter((r) => r.ms >= 0.05)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 10);
};

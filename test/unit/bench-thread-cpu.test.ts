import { threadCpu, threadRows } from '../../bench/thread-cpu';

describe('bench thread CPU (paced suite)', () => {
  it('reads every thread of this process, the main thread under the process id', () => {
    const threads = threadCpu(process.pid);
    expect(threads.get(String(process.pid))).toEqual({ name: expect.any(String), seconds: expect.any(Number) });
    expect([...threads.values()].every((t) => t.seconds >= 0)).toBe(true);
  });

  it('charges per delivery: main apart, each `node` thread apart, other names summed', () => {
    const before = new Map([
      ['100', { name: 'node', seconds: 1 }],
      ['101', { name: 'node', seconds: 0 }],
      ['102', { name: 'tokio-runtime-w', seconds: 0 }],
    ]);
    const after = new Map([
      ['100', { name: 'node', seconds: 3 }],
      ['101', { name: 'node', seconds: 1 }],
      ['102', { name: 'tokio-runtime-w', seconds: 0.5 }],
      ['103', { name: 'tokio-runtime-w', seconds: 0.5 }],
    ]);
    expect(threadRows(100, before, after, 1000)).toEqual([
      { label: '100 (main)', ms: 2 },
      { label: '101 (node)', ms: 1 },
      { label: 'tokio-runtime-w', ms: 1 },
    ]);
  });
});

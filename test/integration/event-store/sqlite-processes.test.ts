import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { openSqliteStore } from '../../../src/event-store/sqlite';
import { tempDir } from '../../support/test-app';

const runChild = (args: string[]) => new Promise<number>((resolve) => {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', join(__dirname, '../../support/append-from-process.ts'), ...args],
    { stdio: ['ignore', 'ignore', 'inherit'] });
  child.on('exit', (code) => resolve(code ?? 1));
});

test('two processes appending to one stream in one SQLite file lose nothing', async () => {
  const dir = tempDir();
  const file = join(dir, 'events.sqlite');
  const stream = 'action_trigger-shared';
  const codes = await Promise.all([runChild([file, stream, '150', 'a']), runChild([file, stream, '150', 'b'])]);
  expect(codes).toEqual([0, 0]);
  const store = openSqliteStore(file);
  const events = await store.read(stream);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  expect(events).toHaveLength(300);
  expect(events.map((e) => e.revision)).toEqual(Array.from({ length: 300 }, (_, i) => BigInt(i)));
  for (const tag of ['a', 'b']) {
    expect(events.filter((e) => e.data.tag === tag).map((e) => e.data.i)).toEqual(Array.from({ length: 150 }, (_, i) => i));
  }
}, 60000);

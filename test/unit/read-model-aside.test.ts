import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inodeOf, KEPT_ASIDE, moveAside } from '../../src/projections/read-model-file';
import { silentLogger } from '../../src/kernel/logger';

test(`a damaged read model moved aside keeps the newest ${KEPT_ASIDE} copies and removes older ones with their -wal/-shm`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'at-aside-'));
  try {
    const file = join(dir, 'read-model.sqlite');
    writeFileSync(file, 'damaged');
    const older = [1, 2, 3, 4].map((d) => `read-model.sqlite.corrupt-2026-01-0${d}T00-00-00-000Z-1`);
    for (const name of older) writeFileSync(join(dir, name), 'old');
    writeFileSync(join(dir, `${older[0]}-wal`), 'old wal');
    writeFileSync(join(dir, 'other.sqlite.corrupt-2026-01-01T00-00-00-000Z-1'), 'not ours');

    const to = moveAside(file, inodeOf(file), silentLogger)!;
    expect(existsSync(file)).toBe(false);
    const left = readdirSync(dir)
      .filter((n) => n.startsWith('read-model.sqlite.corrupt-'))
      .sort();
    expect(left).toEqual([older[2], older[3], to.slice(dir.length + 1)]);
    expect(readdirSync(dir)).toContain('other.sqlite.corrupt-2026-01-01T00-00-00-000Z-1');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

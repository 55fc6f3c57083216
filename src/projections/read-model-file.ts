import Database from 'better-sqlite3';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Logger } from '../kernel/logger';
import { openInWalMode } from '../event-store/sqlite-open';

/**
 * The read model's SQLite file. It is derived data: when it is damaged it is moved aside and
 * a fresh one is rebuilt from the event store, never repaired and never trusted.
 */

/** SQLite's answers for a damaged file ("database disk image is malformed", "file is not a database"). */
export const isCorruption = (e: unknown): boolean => {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB'));
};

/** The file's identity: a process that renamed it aside and made a new one changed it. */
export const inodeOf = (file: string): number | undefined => {
  try {
    return statSync(file).ino;
  } catch {
    return undefined;
  }
};

/**
 * Moves the file and its -wal and -shm aside, if `file` still names the inode found damaged.
 * Several processes may share the file: one that finds another already replaced it leaves the
 * new one alone. (A small window remains between the check and the rename; the loser then
 * finds the new file damaged-free or rebuilds again, which is safe for derived data.)
 */
export const moveAside = (file: string, ino: number | undefined, log: Logger): string | undefined => {
  if (ino === undefined || inodeOf(file) !== ino) return undefined;
  const to = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`;
  renameSync(file, to);
  for (const suffix of ['-wal', '-shm']) if (existsSync(file + suffix)) renameSync(file + suffix, to + suffix);
  log.warn('read model file moved aside; rebuilding it from the event store', { file, moved_to: to });
  pruneAside(file, log);
  return to;
};

/**
 * Damaged files kept for inspection: the newest few. A disk that keeps damaging the file would
 * otherwise fill up with copies (a read model of 100,000 triggers is ~440 MB).
 */
export const KEPT_ASIDE = 3;

/** Removes all but the newest KEPT_ASIDE moved-aside copies of `file` (their names sort by time). */
const pruneAside = (file: string, log: Logger) => {
  const prefix = `${basename(file)}.corrupt-`;
  const copies = readdirSync(dirname(file))
    .filter((n) => n.startsWith(prefix) && !n.endsWith('-wal') && !n.endsWith('-shm'))
    .sort();
  for (const old of copies.slice(0, Math.max(0, copies.length - KEPT_ASIDE))) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(join(dirname(file), old + suffix), { force: true });
    log.info('removed an older damaged read model file', { file: old });
  }
};

const openPlain = (file: string) => {
  const db = openInWalMode(file);
  try {
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 10000');
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
};

/** `PRAGMA quick_check`: O(size) but skips index-vs-table cross checks (integrity_check does them). */
const check = (db: Database.Database) => {
  const rows = db.pragma('quick_check') as Array<{ quick_check: string }>;
  const problems = rows.map((r) => r.quick_check).filter((m) => m !== 'ok');
  if (problems.length > 0) throw Object.assign(new Error(`quick_check: ${problems.slice(0, 3).join('; ')}`), { code: 'SQLITE_CORRUPT' });
};

/**
 * Opens the read model, checked. A file that cannot be opened or fails its check is moved aside
 * and a fresh, empty one opened instead (the runner then rebuilds it from the first event).
 */
export const openCheckedFile = (file: string, log: Logger): { db: Database.Database; ino: number | undefined } => {
  const ino = inodeOf(file);
  try {
    const db = openPlain(file);
    try {
      check(db);
      return { db, ino: inodeOf(file) };
    } catch (e) {
      db.close();
      throw e;
    }
  } catch (e) {
    if (!isCorruption(e)) throw e;
    log.warn('read model file is damaged', { file, error: String(e) });
    moveAside(file, ino, log);
    const db = openPlain(file);
    return { db, ino: inodeOf(file) };
  }
};

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/** The file whose lock says "a server runs on this data dir", and the note naming that server. */
export const LOCK_FILE = 'server.lock';
export const HOLDER_FILE = 'server.lock.json';

/** The server holding a data dir, as it wrote itself down. */
export interface LockHolder {
  pid: number;
  startedAt: string;
  /** Known once its port is bound; a server still starting has none yet. */
  port?: number;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | null,
  ) {
    const who = holder
      ? `pid ${holder.pid}, ${holder.port === undefined ? 'port not bound yet' : `port ${holder.port}`}, started ${holder.startedAt}`
      : 'it has not written its details yet';
    super(
      `the data dir ${dataDir} is in use by another Railyard server (${who}): stop that one first, or give this one another RAILYARD_DATA_DIR`,
    );
  }
}

export interface DataDirLock {
  /** Adds the bound port to the note a refused second server reads. */
  announce(port: number): void;
  release(): void;
}

const readHolder = (dataDir: string): LockHolder | null => {
  try {
    const note = JSON.parse(readFileSync(path.join(dataDir, HOLDER_FILE), 'utf8')) as LockHolder;
    return Number.isInteger(note.pid) && typeof note.startedAt === 'string' ? note : null;
  } catch {
    return null;
  }
};

const writeHolder = (dataDir: string, holder: LockHolder): void => {
  // Written aside and renamed, so a refused server never reads half a note.
  const temporary = path.join(dataDir, `${HOLDER_FILE}.${process.pid}`);
  writeFileSync(temporary, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  renameSync(temporary, path.join(dataDir, HOLDER_FILE));
};

/**
 * One embedded server per data dir (docs/operations.md, "One server per data dir"): an exclusive
 * SQLite transaction on `server.lock`, opened and never committed. SQLite takes it with a POSIX
 * record lock, which the kernel drops when the process ends however it ends (kill -9 included), so
 * no stale lock outlives its server and no lease has to be renewed (docs/decisions.md D221).
 * A second server is refused at once with the holder's pid, port and start time.
 */
export const lockDataDir = (dataDir: string, now: () => Date = () => new Date()): DataDirLock => {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(path.join(dataDir, LOCK_FILE), { timeout: 0 });
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: unknown }).code === 'SQLITE_BUSY') throw new DataDirLockedError(dataDir, readHolder(dataDir));
    throw err;
  }
  const holder: LockHolder = { pid: process.pid, startedAt: now().toISOString() };
  writeHolder(dataDir, holder);
  return {
    announce: (port) => writeHolder(dataDir, { ...holder, port }),
    release: () => {
      if (!db.open) return;
      db.exec('ROLLBACK');
      db.close();
    },
  };
};

import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BlobStore, ExpiredBlobs } from '../blob-port';
import { assertBlobName, assertBlobSpace, isBlobName, isDigest, sha256Hex } from './digest';

export interface FsBlobStoreOptions {
  /**
   * Root directory; blobs live at `<dir>/<first two hex digits>/<the other 62>`, named blobs at
   * `<dir>/named/<name>` (a name's segments never start with `.`, so it cannot leave that directory).
   */
  dir: string;
}

/**
 * Blobs as files. Each is written to a temporary name, synced, then renamed into place, so a reader
 * (or a restart after a crash) sees either the whole blob or none of it. Leftover temporary files
 * start with `.tmp-` and never collide with a digest name.
 */
export class FsBlobStore implements BlobStore {
  constructor(private readonly options: FsBlobStoreOptions) {}

  async put(bytes: Buffer): Promise<string> {
    const digest = sha256Hex(bytes);
    const target = join(this.options.dir, digest.slice(0, 2), digest.slice(2));
    if (await exists(target)) return digest;
    await writeWhole(target, bytes);
    return digest;
  }

  async get(digest: string): Promise<Buffer | null> {
    if (!isDigest(digest)) return null;
    return readOrNull(join(this.options.dir, digest.slice(0, 2), digest.slice(2)));
  }

  async putNamed(name: string, bytes: Buffer): Promise<void> {
    assertBlobName(name);
    await writeWhole(join(this.options.dir, 'named', name), bytes);
  }

  async getNamed(name: string): Promise<Buffer | null> {
    if (!isBlobName(name)) return null;
    return readOrNull(join(this.options.dir, 'named', name));
  }

  async expireNamed(space: string, before: Date, note: Buffer): Promise<ExpiredBlobs> {
    assertBlobSpace(space);
    const expired = { blobs: 0, bytes: 0 };
    for (const file of await filesUnder(join(this.options.dir, 'named', space))) {
      const info = await stat(file).catch(() => null);
      if (!info?.isFile() || info.mtimeMs >= before.getTime()) continue;
      // The note's own file is not written again (writing it would make it new for another period).
      if (info.size === note.length && (await readOrNull(file))?.equals(note)) continue;
      // Not atomic with the check: a name written again in that instant loses its new bytes. Names
      // swept here (a check's log) are written while their run lasts, far inside any retention.
      await writeWhole(file, note);
      expired.blobs++;
      expired.bytes += info.size - note.length;
    }
    return expired;
  }

  async close(): Promise<void> {
    // Nothing is held open between calls.
  }
}

/** Temporary name, sync, rename: a reader sees the old file or the whole new one, also after a crash. */
async function writeWhole(target: string, bytes: Buffer): Promise<void> {
  const dir = dirname(target);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.tmp-${randomBytes(8).toString('hex')}`);
  try {
    const file = await open(temp, 'wx', 0o600);
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, target);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  await syncDir(dir);
}

/** Every file below `dir` (temporary files left by a crash excepted); none when it does not exist. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  return entries.filter((e) => e.isFile() && !e.name.startsWith('.')).map((e) => join(e.parentPath, e.name));
}

async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOTDIR/EISDIR: a name that is a prefix or an extension of another name's directory.
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
    throw err;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** Makes the rename itself durable; some platforms cannot sync a directory, which is harmless here. */
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // The blob is complete either way; only its survival of a power cut is weaker.
  }
}

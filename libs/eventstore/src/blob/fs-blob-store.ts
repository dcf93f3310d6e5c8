import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobStore } from '../blob-port';
import { isDigest, sha256Hex } from './digest';

export interface FsBlobStoreOptions {
  /** Root directory; blobs live at `<dir>/<first two hex digits>/<the other 62>`. */
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
    const dir = join(this.options.dir, digest.slice(0, 2));
    const target = join(dir, digest.slice(2));
    if (await exists(target)) return digest;
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
    return digest;
  }

  async get(digest: string): Promise<Buffer | null> {
    if (!isDigest(digest)) return null;
    try {
      return await readFile(join(this.options.dir, digest.slice(0, 2), digest.slice(2)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async close(): Promise<void> {
    // Nothing is held open between calls.
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

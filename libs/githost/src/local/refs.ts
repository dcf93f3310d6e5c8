import { promises as fs, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { LruCache } from './lru';
import { isObjectId } from './names';

interface PackedRefs {
  /** Identity of the file we parsed: git rewrites packed-refs by rename, so a change shows here. */
  signature: string;
  refs: Map<string, string>;
}

const MAX_SYMREF_DEPTH = 5;

const isMissing = (err: unknown): boolean => {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
};

/**
 * Reads refs of bare repositories straight from the files backend (a loose file under the git
 * directory, else the packed-refs file) so that answering "what is this ref now" costs a file read
 * instead of a git process. The parsed packed-refs of each repository is kept until its file changes.
 */
export class RefReader {
  private readonly packed: LruCache<string, PackedRefs>;

  constructor(maxRepositories = 1024) {
    this.packed = new LruCache(maxRepositories);
  }

  /** The object id `refname` (e.g. `refs/heads/main`) points at, or null when there is no such ref. */
  async read(gitDir: string, refname: string): Promise<string | null> {
    let name = refname;
    for (let depth = 0; depth <= MAX_SYMREF_DEPTH; depth++) {
      const value = (await this.readLoose(gitDir, name)) ?? (await this.readPacked(gitDir, name));
      if (value === null) return null;
      if (!value.startsWith('ref: ')) return isObjectId(value) ? value : null;
      name = value.slice('ref: '.length);
    }
    return null;
  }

  clear(): void {
    this.packed.clear();
  }

  // Loose refs and the packed-refs stat are read synchronously on purpose: they are tens of bytes in the
  // page cache, read on every submission, and fs.promises costs several thread-pool round trips (about
  // 70 µs of CPU per file here, against 6 µs for a synchronous read; docs/benchmarks.md).
  private async readLoose(gitDir: string, refname: string): Promise<string | null> {
    try {
      return readFileSync(path.join(gitDir, refname), 'utf8').trim();
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  private async readPacked(gitDir: string, refname: string): Promise<string | null> {
    const file = path.join(gitDir, 'packed-refs');
    let signature: string;
    try {
      const st = statSync(file, { bigint: true });
      signature = `${st.ino}:${st.size}:${st.mtimeNs}`;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    let cached = this.packed.get(gitDir);
    if (cached?.signature !== signature) {
      let text: string;
      try {
        text = await fs.readFile(file, 'utf8');
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
      cached = { signature, refs: parsePackedRefs(text) };
      this.packed.set(gitDir, cached);
    }
    return cached.refs.get(refname) ?? null;
  }
}

/** `<oid> <refname>` lines; `#` starts the header, `^<oid>` is the peeled value of the tag above it. */
export const parsePackedRefs = (text: string): Map<string, string> => {
  const refs = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#') || line.startsWith('^')) continue;
    const space = line.indexOf(' ');
    if (space <= 0) continue;
    refs.set(line.slice(space + 1), line.slice(0, space));
  }
  return refs;
};

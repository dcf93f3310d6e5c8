import { promises as fs, statSync } from 'node:fs';
import * as path from 'node:path';
import { LRUCache } from 'lru-cache';
import { GitHostError } from '../errors';
import { readSmallRegularFile } from './safe-files';
import { isObjectId, isValidBranchName } from './names';

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
  private readonly packed: LRUCache<string, PackedRefs>;

  constructor(maxRepositories = 1024) {
    this.packed = new LRUCache({ max: maxRepositories });
  }

  /**
   * The object id `refname` (e.g. `refs/heads/main`) points at, or null when there is no such ref.
   * A refname that is not `refs/<valid components>` is refused before it is turned into a path: a
   * queue's branch comes from an event stream, and `refs/heads/../../x` must never reach the disk.
   */
  async read(gitDir: string, refname: string): Promise<string | null> {
    assertRefName(refname);
    let name = refname;
    for (let depth = 0; depth <= MAX_SYMREF_DEPTH; depth++) {
      const value = (await this.readLoose(gitDir, name)) ?? (await this.readPacked(gitDir, name));
      if (value === null) return null;
      if (!value.startsWith('ref: ')) return isObjectId(value) ? value : null;
      name = value.slice('ref: '.length);
      if (!isValidRefName(name)) return null;
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
    return readSmallRegularFile(gitDir, refname)?.trim() ?? null;
  }

  /**
   * Every ref under `prefix` (e.g. `refs/heads/railyard-merge/`) with the object it points at, loose
   * refs over packed ones, read from the files as `read` does: no git process.
   */
  async list(gitDir: string, prefix: string): Promise<Map<string, string>> {
    if (!prefix.endsWith('/') || !isValidRefName(prefix.slice(0, -1)))
      throw new GitHostError('INVALID_INPUT', `not a ref prefix: ${prefix}`);
    const refs = new Map<string, string>();
    for (const [name, sha] of (await this.packedRefs(gitDir)) ?? []) if (name.startsWith(prefix)) refs.set(name, sha);
    const walk = async (relative: string): Promise<void> => {
      const entries = await fs.readdir(path.join(gitDir, relative), { withFileTypes: true }).catch((err: unknown) => {
        if (isMissing(err)) return [];
        throw err;
      });
      for (const entry of entries) {
        const name = `${relative}/${entry.name}`;
        if (entry.isDirectory()) await walk(name);
        else if (entry.isFile() && isValidRefName(name)) {
          const value = readSmallRegularFile(gitDir, name)?.trim();
          if (value !== undefined && isObjectId(value)) refs.set(name, value);
        }
      }
    };
    await walk(prefix.slice(0, -1));
    return refs;
  }

  private async readPacked(gitDir: string, refname: string): Promise<string | null> {
    return (await this.packedRefs(gitDir))?.get(refname) ?? null;
  }

  private async packedRefs(gitDir: string): Promise<Map<string, string> | null> {
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
    return cached.refs;
  }
}

/** `refs/` followed by components git's check-ref-format accepts (the branch-name rules, which are stricter). */
export const isValidRefName = (name: string): boolean => name.startsWith('refs/') && isValidBranchName(name.slice('refs/'.length));

const assertRefName = (name: string): void => {
  if (!isValidRefName(name)) throw new GitHostError('INVALID_INPUT', `not a valid ref name: ${JSON.stringify(name)}`);
};

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

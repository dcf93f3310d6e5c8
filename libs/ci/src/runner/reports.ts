import { constants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import picomatch from 'picomatch';

/** At most this many report files per check, and this many bytes in all: what one upload may hold (the recorder's limits). */
export const MAX_REPORT_FILES = 100;
export const MAX_REPORT_BYTES = 20 * 1024 * 1024;
/** Directory entries looked at per check; a checkout with more is a runaway tree, not a place for reports. */
export const MAX_WALKED_ENTRIES = 100_000;

export interface CollectedReports {
  files: Buffer[];
  /** Relative paths of `files`, in the same order. */
  paths: string[];
  /** Entries a pattern named that were not read, and why: the pull request's own doing, said in its log. */
  skipped: { path: string; reason: string }[];
}

/**
 * A report pattern as a path matcher: `**` any number of directories, `*` any characters but `/`,
 * `?` one such character. Dot files match too: a pattern names report files, not hidden ones.
 */
export const reportMatcher = (pattern: string): ((file: string) => boolean) => picomatch(pattern, { dot: true });

/** The directory a pattern's matches must be under: the part before its first wildcard. */
const staticPrefix = (pattern: string): string => {
  const { base, isGlob } = picomatch.scan(pattern);
  const dir = isGlob ? base : path.posix.dirname(base);
  return dir === '.' ? '' : dir;
};

// O_NOFOLLOW: a link is never followed, whatever it names. O_NONBLOCK: a named pipe opens at once
// (and is then refused as not a regular file) instead of waiting for a writer that never comes.
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * Opens `name` inside the directory open as `dir`, one component, without following a link: the
 * parent is pinned by its descriptor (`/proc/self/fd/N`), so no link anywhere above can be swapped in.
 */
const openAt = (dir: FileHandle, name: string, flags: number): Promise<FileHandle> => fs.open(`/proc/self/fd/${dir.fd}/${name}`, flags);

const reasonOf = (err: unknown): string => {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'ENOTDIR') return 'a symbolic link, not followed';
  if (code === 'ENOENT') return 'gone';
  return code ?? 'unreadable';
};

/**
 * The files under `root` (the check's checkout) matching any pattern, read into memory, in path order.
 * `root` is the runner's; everything below it is the pull request's, so every entry is opened one
 * component at a time relative to its parent's descriptor, with O_NOFOLLOW: a link at any level is
 * skipped, never followed, and only regular files with a single name are read (a hard link could
 * name a file of the server). Nothing here throws for what the tree holds: an entry that cannot be
 * read is listed in `skipped`, so the check is judged on its exit code as if that report were absent.
 */
export const collectReports = async (root: string, patterns: readonly string[]): Promise<CollectedReports> => {
  const matchers = patterns.map(reportMatcher);
  const read = new Map<string, Buffer>();
  const skipped = new Map<string, string>();
  let walked = 0;
  let bytes = 0;

  const take = async (dir: FileHandle, name: string, rel: string): Promise<void> => {
    if (read.has(rel) || skipped.has(rel)) return;
    if (read.size >= MAX_REPORT_FILES) return void skipped.set(rel, `more than ${MAX_REPORT_FILES} report files`);
    const got = await readRegularFile(dir, name, MAX_REPORT_BYTES - bytes);
    if (typeof got === 'string') return void skipped.set(rel, got);
    bytes += got.length;
    read.set(rel, got);
  };

  const walk = async (dir: FileHandle, rel: string): Promise<void> => {
    const entries = await fs.readdir(`/proc/self/fd/${dir.fd}`, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (++walked > MAX_WALKED_ENTRIES) return void skipped.set(rel || '.', `more than ${MAX_WALKED_ENTRIES} entries; stopped looking`);
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      const matches = matchers.some((m) => m(child));
      if (entry.isDirectory()) {
        if (entry.name === '.git') continue;
        const sub = await openAt(dir, entry.name, DIR_FLAGS).catch(() => null);
        if (!sub) continue;
        try {
          await walk(sub, child);
        } finally {
          await sub.close().catch(() => undefined);
        }
      } else if (matches && entry.isFile()) await take(dir, entry.name, child);
      else if (matches) skipped.set(child, entry.isSymbolicLink() ? 'a symbolic link, not followed' : 'not a regular file');
    }
  };

  /** Walks below a pattern's fixed prefix, each component opened without following a link. */
  const walkPrefix = async (top: FileHandle, prefix: string): Promise<void> => {
    const parts = prefix.split('/').filter((p) => p !== '' && p !== '.');
    if (parts.some((p) => p === '..' || p === '.git')) return;
    const opened: FileHandle[] = [];
    try {
      let dir = top;
      let rel = '';
      for (const part of parts) {
        rel = rel ? `${rel}/${part}` : part;
        try {
          dir = await openAt(dir, part, DIR_FLAGS);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') skipped.set(rel, reasonOf(err));
          return;
        }
        opened.push(dir);
      }
      await walk(dir, rel);
    } finally {
      await Promise.all(opened.map((h) => h.close().catch(() => undefined)));
    }
  };

  let top: FileHandle;
  try {
    top = await fs.open(root, DIR_FLAGS);
  } catch (err) {
    return { files: [], paths: [], skipped: [{ path: '.', reason: reasonOf(err) }] };
  }
  try {
    for (const prefix of new Set(patterns.map(staticPrefix))) await walkPrefix(top, prefix);
  } finally {
    await top.close().catch(() => undefined);
  }
  const paths = [...read.keys()].sort();
  return {
    files: paths.map((p) => read.get(p) as Buffer),
    paths,
    skipped: [...skipped].map(([p, reason]) => ({ path: p, reason })).sort((a, b) => (a.path < b.path ? -1 : 1)),
  };
};

/** The bytes of a regular file with one name and at most `budget` bytes, or why not. */
const readRegularFile = async (dir: FileHandle, name: string, budget: number): Promise<Buffer | string> => {
  let handle: FileHandle;
  try {
    handle = await openAt(dir, name, FILE_FLAGS);
  } catch (err) {
    return reasonOf(err);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return 'not a regular file';
    if (stat.nlink !== 1) return 'a file with more than one name (hard link)';
    if (stat.size > budget) return `over the ${MAX_REPORT_BYTES / 1024 / 1024} MiB the reports of a check may hold`;
    // At most the size it had when looked at: a file still growing cannot take the runner past the budget.
    const buffer = Buffer.alloc(stat.size);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.subarray(0, length);
  } catch (err) {
    return reasonOf(err);
  } finally {
    await handle.close().catch(() => undefined);
  }
};

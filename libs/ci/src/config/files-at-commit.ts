import { runGit } from '@railyard/githost';
import { LRUCache } from 'lru-cache';

export type FileAtCommit = { kind: 'missing' } | { kind: 'file'; text: string } | { kind: 'unreadable'; message: string };

export interface FilesAtCommit {
  /** False when the sha names no commit of the repository. */
  commitExists: boolean;
  files: Map<string, FileAtCommit>;
}

/**
 * File texts by blob id: a blob id is the hash of its bytes, so the same id always reads the same
 * text. Every run start reads the config at a new base commit whose config file is almost always the
 * same blob; its `cat-file blob` was one more process between a verdict and the next check (issue 26).
 */
const blobs = new LRUCache<string, string>({ max: 256, maxSize: 4 * 1024 * 1024, sizeCalculation: (text) => text.length || 1 });

const blobText = async (gitDir: string, oid: string): Promise<string> => {
  const key = `${gitDir}\0${oid}`;
  const known = blobs.get(key);
  if (known !== undefined) return known;
  const { stdout } = await runGit(gitDir, ['cat-file', 'blob', oid]);
  blobs.set(key, stdout);
  return stdout;
};

/**
 * Reads a few small files of one commit straight from the object store (no checkout): one
 * `cat-file --batch-check` for the commit and every path, then one `cat-file blob` per file found and not read before.
 */
export const readFilesAtCommit = async (
  gitDir: string,
  sha: string,
  paths: readonly string[],
  maxBytes: number,
): Promise<FilesAtCommit> => {
  const input = [sha, ...paths.map((p) => `${sha}:${p}`)].map((l) => `${l}\n`).join('');
  const { stdout } = await runGit(gitDir, ['cat-file', '--batch-check'], { input });
  const [commitLine, ...pathLines] = stdout.split('\n');
  const files = new Map<string, FileAtCommit>();
  if (!commitLine || !/^[0-9a-f]+ commit \d+$/.test(commitLine)) return { commitExists: false, files };
  for (const [i, file] of paths.entries()) {
    const [oid, type, size] = (pathLines[i] ?? '').split(' ');
    if (type === undefined || type === 'missing' || !oid) {
      files.set(file, { kind: 'missing' });
    } else if (type !== 'blob') {
      files.set(file, { kind: 'unreadable', message: `${file} is a ${type}, not a file` });
    } else if (Number(size) > maxBytes) {
      files.set(file, { kind: 'unreadable', message: `${file} is larger than ${Math.round(maxBytes / 1024)} KiB` });
    } else {
      files.set(file, { kind: 'file', text: await blobText(gitDir, oid) });
    }
  }
  return { commitExists: true, files };
};

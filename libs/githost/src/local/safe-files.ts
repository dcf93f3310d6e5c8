import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import * as path from 'node:path';
import { GitHostError } from '../errors';

/** Refs and PR files are tens of bytes; anything past this is not one of ours. */
const MAX_BYTES = 64 * 1024;

const isMissing = (err: unknown): boolean => {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
};

/**
 * Reads `relative` under `dir` when it is a small regular file, or answers null when it does not
 * exist. The path must stay inside `dir` once resolved; the file is opened without following a
 * symbolic link and without blocking (a named pipe would otherwise hold the open, and with it the
 * whole process, until a writer comes), and anything but a regular file is refused. Synchronous on
 * purpose: these files sit in the page cache and are read on hot paths (docs/githost.md).
 */
export const readSmallRegularFile = (dir: string, relative: string): string | null => {
  const root = path.resolve(dir);
  const file = path.resolve(root, relative);
  if (!file.startsWith(root + path.sep)) throw new GitHostError('INVALID_INPUT', `${JSON.stringify(relative)} leads outside ${root}`);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if (isMissing(err)) return null;
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw notRegular(file, 'a symbolic link');
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notRegular(file, st.isFIFO() ? 'a named pipe' : st.isDirectory() ? 'a directory' : 'a special file');
    if (st.size > MAX_BYTES) throw new GitHostError('GIT_FAILED', `${file} is ${st.size} bytes, too large for a ref or PR file`);
    const buf = Buffer.alloc(st.size);
    const n = st.size === 0 ? 0 : readSync(fd, buf, 0, st.size, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
};

const notRegular = (file: string, what: string): GitHostError => new GitHostError('GIT_FAILED', `${file} is ${what}, not a regular file`);

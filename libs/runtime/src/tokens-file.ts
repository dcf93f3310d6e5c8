import { constants, fstatSync, openSync, readFileSync, closeSync } from 'node:fs';

/**
 * Reads RAILYARD_API_TOKENS_FILE: the same `name:secret:scope` entries as RAILYARD_API_TOKENS, one per
 * line or comma separated, blank lines and `#` comments ignored. The file must be a regular file that
 * no one but its owner can write (anyone who can write it can mint an admin token); one that others
 * can read is accepted with a warning, since mounted secrets (Kubernetes, Docker) are often 0644/0444.
 */
export const readTokensFile = (file: string, warn: (message: string) => void): string => {
  // O_NOFOLLOW is not used: secret mounts are symlinks by design. O_NONBLOCK keeps a FIFO from hanging the start.
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`RAILYARD_API_TOKENS_FILE ${file} is not a regular file`);
    if ((stat.mode & 0o022) !== 0)
      throw new Error(`RAILYARD_API_TOKENS_FILE ${file} can be written by others (mode ${modeOf(stat.mode)}); chmod 600 it`);
    if ((stat.mode & 0o044) !== 0) warn(`RAILYARD_API_TOKENS_FILE ${file} can be read by others (mode ${modeOf(stat.mode)}); chmod 600 it`);
    const entries = readFileSync(fd, 'utf8')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    if (entries.length === 0) throw new Error(`RAILYARD_API_TOKENS_FILE ${file} holds no token`);
    return entries.join(',');
  } finally {
    closeSync(fd);
  }
};

const modeOf = (mode: number): string => (mode & 0o777).toString(8).padStart(4, '0');

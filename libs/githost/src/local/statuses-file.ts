import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { GitHostError } from '../errors';
import type { CommitStatus } from '../statuses/port';

/**
 * The per-commit statuses file versions before statuses became events kept inside the bare
 * repository (docs/decisions.md D180, D182). Nothing writes it any more; it is read beneath the
 * events so a run that was testing during the upgrade keeps the checks it had already passed.
 */
export const STATUS_FILE_VERSION = 1;

export interface StatusFile {
  version: typeof STATUS_FILE_VERSION;
  sha: string;
  statuses: CommitStatus[];
}

export const statusesDirOf = (gitDir: string): string => path.join(gitDir, 'railyard', 'statuses');

/** Fanned out by the first two hex digits, as git's loose objects are, so no directory grows huge. */
export const statusFileOf = (gitDir: string, sha: string): string => path.join(statusesDirOf(gitDir), sha.slice(0, 2), `${sha}.json`);

/** The commit's statuses; a commit nobody reported on has an empty list. A damaged file throws. */
export const readStatusFile = async (file: string, sha: string): Promise<StatusFile> => {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: STATUS_FILE_VERSION, sha, statuses: [] };
    throw err;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new GitHostError('CORRUPT_STATUS_FILE', `${file}: not JSON (${(err as Error).message})`);
  }
  const o = data as Partial<StatusFile> | null;
  if (!o || o.version !== STATUS_FILE_VERSION || o.sha !== sha || !Array.isArray(o.statuses))
    throw new GitHostError('CORRUPT_STATUS_FILE', `${file}: expected {"version":1,"sha":"${sha}","statuses":[…]}`);
  return o as StatusFile;
};

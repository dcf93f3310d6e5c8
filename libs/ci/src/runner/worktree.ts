import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { runGit } from '@railyard/githost';

/** A detached checkout of `sha` at `dir`, sharing the bare repository's objects (no clone, no fetch). */
export const addWorktree = async (gitDir: string, dir: string, sha: string): Promise<void> => {
  await fs.mkdir(path.dirname(dir), { recursive: true });
  await runGit(gitDir, ['worktree', 'add', '--detach', '--force', dir, sha]);
};

/** Removes the checkout and git's record of it; a checkout already gone is fine. */
export const removeWorktree = async (gitDir: string, dir: string): Promise<void> => {
  await runGit(gitDir, ['worktree', 'remove', '--force', '--force', dir], { okCodes: [128] }).catch(() => undefined);
  await fs.rm(dir, { recursive: true, force: true });
  await runGit(gitDir, ['worktree', 'prune']).catch(() => undefined);
};

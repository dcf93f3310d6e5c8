import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { runGit } from '@railyard/githost';

/**
 * A checkout of `sha` at `dir` that is a repository of its own: `git init`, the bare repository's
 * objects borrowed through `objects/info/alternates` (nothing copied, nothing fetched), then a
 * detached checkout. No state is shared with the bare repository or with other checkouts, unlike
 * `git worktree add`, whose admin directory (`worktrees/<last path segment>`) raced with every
 * other add and prune (docs/ci.md). Nothing of the bare repository is written, and a check sees
 * only the objects, which the sandbox mounts read-only.
 */
export const makeCheckout = async (gitDir: string, dir: string, sha: string): Promise<void> => {
  // An empty template: no sample hooks or other files copied per checkout.
  await runGit(null, ['init', '--quiet', '--template=', dir]);
  const info = path.join(dir, '.git', 'objects', 'info');
  await fs.mkdir(info, { recursive: true });
  await fs.writeFile(path.join(info, 'alternates'), `${path.resolve(gitDir, 'objects')}\n`);
  await runGit(path.join(dir, '.git'), [`--work-tree=${dir}`, 'checkout', '--quiet', '--detach', sha, '--']);
};

/** Removes a checkout; one already gone is fine. Nothing to tell git: it never knew about it. */
export const removeCheckout = (dir: string): Promise<void> => fs.rm(dir, { recursive: true, force: true });

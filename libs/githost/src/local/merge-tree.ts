import { GitHostError } from '../errors';
import type { GitRunner } from './git';
import { runGit } from './git-helper';
import { isObjectId } from './names';

export type MergeTreeResult = { clean: true; tree: string } | { clean: false; conflicts: string[]; unrelated: boolean };

/**
 * A three-way merge of two commits computed by git without a working tree or index
 * (`git merge-tree --write-tree`, git ≥ 2.38). The merged tree is written to the object store;
 * nothing else changes. The merge base is whatever git finds from the two commits' history.
 */
export const mergeTree = async (
  gitDir: string,
  ours: string,
  theirs: string,
  opts: { allowUnrelated?: boolean; niceness?: number; run?: GitRunner } = {},
): Promise<MergeTreeResult> => {
  const args = ['merge-tree', '--write-tree', '--no-messages', '--name-only', '-z'];
  if (opts.allowUnrelated) args.push('--allow-unrelated-histories');
  // Object ids only: a name starting with `-` could otherwise be read as an option.
  if (!isObjectId(ours) || !isObjectId(theirs))
    throw new GitHostError('INVALID_INPUT', `merge-tree takes object ids, got ${ours} and ${theirs}`);
  const { code, stdout, stderr } = await (opts.run ?? runGit)(gitDir, [...args, ours, theirs], {
    okCodes: [1, 128],
    ...(opts.niceness !== undefined ? { niceness: opts.niceness } : {}),
  });
  if (code === 128) {
    if (/unrelated histories/.test(stderr)) return { clean: false, conflicts: [], unrelated: true };
    throw new GitHostError('GIT_FAILED', `git merge-tree ${ours} ${theirs} failed: ${stderr.trim()}`);
  }
  // Exit 1 means conflicts only when a tree comes first; git also exits 1 for an unknown commit.
  const [tree = '', ...rest] = stdout.split('\0');
  if (!isObjectId(tree)) throw new GitHostError('GIT_FAILED', `git merge-tree ${ours} ${theirs} failed: ${stderr.trim()}`);
  if (code === 0) return { clean: true, tree };
  return { clean: false, conflicts: rest.filter((p) => p !== ''), unrelated: false };
};

import type { RepoRef } from '@railyard/domain';
import { existingRepoDir, GitHostError, isObjectId, runGit } from '@railyard/githost';
import { RAILYARD_CONFIG_FILE, TRUNK_CONFIG_FILE } from './railyard-config';

/** The files whose content at the config commit gates a run (docs/ci.md, "Which configuration gates a run"). */
export const GATING_CONFIG_FILES = [RAILYARD_CONFIG_FILE, TRUNK_CONFIG_FILE] as const;

/**
 * The gating configuration files whose object differs between two commits of the local host (added,
 * removed, edited or replaced by a directory): what a PR changes that its run does not use. One
 * `cat-file --batch-check` for both commits; nothing is read.
 */
export const configChangesBetween = async (root: string, repo: RepoRef, from: string, to: string): Promise<string[]> => {
  if (!isObjectId(from) || !isObjectId(to)) throw new GitHostError('INVALID_INPUT', 'configChangesBetween takes full commit ids');
  const gitDir = await existingRepoDir(root, repo);
  const lines = [from, to].flatMap((sha) => GATING_CONFIG_FILES.map((file) => `${sha}:${file}\n`));
  const { stdout } = await runGit(gitDir, ['cat-file', '--batch-check'], { input: lines.join('') });
  // `<oid> <type> <size>`, or `<name> missing`: an absent file is the same absence on both sides.
  const ids = stdout.split('\n').map((l) => (l.endsWith(' missing') ? 'missing' : (l.split(' ')[0] ?? '')));
  const n = GATING_CONFIG_FILES.length;
  return GATING_CONFIG_FILES.filter((_, i) => ids[i] !== ids[i + n]);
};

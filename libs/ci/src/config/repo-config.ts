import { formatRepo, type RepoRef } from '@railyard/domain';
import { LRUCache } from 'lru-cache';
import { existingRepoDir, GitHostError, isObjectId } from '@railyard/githost';
import { readFilesAtCommit, type FileAtCommit } from './files-at-commit';
import {
  MAX_CONFIG_BYTES,
  parseRailyardConfig,
  parseTrunkConfig,
  RAILYARD_CONFIG_FILE,
  TRUNK_CONFIG_FILE,
  type ConfigParse,
  type RailyardConfig,
} from './railyard-config';

/** The configuration files of one commit: each absent (null), parsed, or broken (with why). */
export interface RepoConfigAtCommit {
  railyard: ConfigParse<RailyardConfig> | null;
  trunk: ConfigParse<{ requiredStatuses?: string[] }> | null;
}

const parsedOrNull = <T>(file: FileAtCommit | undefined, parse: (text: string) => ConfigParse<T>): ConfigParse<T> | null => {
  if (!file || file.kind === 'missing') return null;
  if (file.kind === 'unreadable') return { ok: false, message: file.message };
  return parse(file.text);
};

/**
 * A commit's files never change, so its parsed config is kept: every run built on the same target
 * commit (a round's runs, their re-runs, each check the local CI starts) asks for the same one.
 * Callers treat the answer as read-only.
 */
const CONFIGS_KEPT = 512;
const configs = new LRUCache<string, RepoConfigAtCommit>({ max: CONFIGS_KEPT });

/** Reads `.railyard.yml` and `.trunk/trunk.yaml` at `sha`. Unknown repository or commit: GitHostError. */
export const readRepoConfig = async (root: string, repo: RepoRef, sha: string): Promise<RepoConfigAtCommit> => {
  if (!isObjectId(sha)) throw new GitHostError('INVALID_INPUT', `not a full commit id: ${JSON.stringify(sha)}`);
  // Looked up every time: a repository removed since must answer REPO_NOT_FOUND, not its old config.
  const gitDir = await existingRepoDir(root, repo);
  const key = `${gitDir}\0${sha}`;
  const kept = configs.get(key);
  if (kept) return kept;
  const read = await readFilesAtCommit(gitDir, sha, [RAILYARD_CONFIG_FILE, TRUNK_CONFIG_FILE], MAX_CONFIG_BYTES);
  if (!read.commitExists) throw new GitHostError('REVISION_NOT_FOUND', `no commit ${sha} in ${formatRepo(repo)}`);
  const config = {
    railyard: parsedOrNull(read.files.get(RAILYARD_CONFIG_FILE), (t) => parseRailyardConfig(t)),
    trunk: parsedOrNull(read.files.get(TRUNK_CONFIG_FILE), (t) => parseTrunkConfig(t)),
  };
  configs.set(key, config);
  return config;
};

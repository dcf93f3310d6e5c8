import type { RepoRef, RequiredStatusesSource } from '@railyard/domain';
import type { RepoConfigAtCommit } from './config/repo-config';
import { readRepoConfig } from './config/repo-config';

export type RequiredStatusesResult =
  | {
      statuses: string[];
      source: RequiredStatusesSource;
      /** The checks `.railyard.yml` gives the local CI at the config commit: only it may report them (D201). */
      localChecks: string[];
    }
  | { error: 'START_TEST_RUN_NO_REQUIRED_STATUSES' | 'START_TEST_RUN_CONFIG_PARSING_FAILURE'; message: string };

export interface ResolveRequiredStatusesInput {
  /** The queue's own list (getQueue's requiredStatuses); empty means "not set". */
  queueList: readonly string[];
  repo: RepoRef;
  /**
   * The commit whose files gate the run: the target-branch commit it is built on (the domain's
   * gatingConfigCommit), never the tested commit, whose files the PR under test controls.
   */
  configSha: string;
}

/** The checks the local CI runs per the files: none when `.railyard.yml` is absent or broken (the runner then runs nothing). */
export const localChecksOf = (config: RepoConfigAtCommit): string[] =>
  config.railyard?.ok ? config.railyard.config.checks.map((c) => c.name) : [];

/**
 * Trunk's documented order, without branch protection (the local host has none): the queue's list,
 * else `.railyard.yml`, else `.trunk/trunk.yaml`. A file that is there but broken stops the search
 * with a config error rather than silently falling through to a looser source.
 */
export const requiredStatusesFrom = (queueList: readonly string[], config: RepoConfigAtCommit): RequiredStatusesResult => {
  const localChecks = localChecksOf(config);
  if (queueList.length > 0) return { statuses: [...new Set(queueList)], source: 'merge_instance', localChecks };
  for (const file of [config.railyard, config.trunk]) {
    if (file === null) continue;
    if (!file.ok) return { error: 'START_TEST_RUN_CONFIG_PARSING_FAILURE', message: file.message };
    if (file.config.requiredStatuses) return { statuses: file.config.requiredStatuses, source: 'trunk_config', localChecks };
  }
  return {
    error: 'START_TEST_RUN_NO_REQUIRED_STATUSES',
    message: 'No required statuses: the queue sets none and neither .railyard.yml nor .trunk/trunk.yaml has merge.required_statuses',
  };
};

/** requiredStatusesFrom with the files read at `configSha` in the local host under `root`. */
export const resolveRequiredStatuses = async (root: string, input: ResolveRequiredStatusesInput): Promise<RequiredStatusesResult> =>
  requiredStatusesFrom(input.queueList, await readRepoConfig(root, input.repo, input.configSha));

import type { RepoRef } from '@railyard/domain';
import { existingRepoDir, repoDirOrThrow } from '../local/repos';
import { readStatusFile, statusFileOf } from '../local/statuses-file';
import { EventStoreCommitStatusStore, type EventStoreCommitStatusStoreOptions } from './event-store-statuses';
import type { CommitStatus } from './port';

/**
 * The statuses file an older version kept inside the bare repository (docs/ci.md, "Commit
 * statuses"), read only: a run that was testing during an upgrade keeps the checks it had passed.
 */
export const legacyStatusFiles =
  (root: string) =>
  async (repo: RepoRef, sha: string): Promise<CommitStatus[]> =>
    (await readStatusFile(statusFileOf(repoDirOrThrow(root, repo), sha), sha)).statuses;

export interface LocalHostStatusesOptions extends Omit<EventStoreCommitStatusStoreOptions, 'assertRepo' | 'legacy'> {
  /** Directory holding `<host>/<owner>/<name>.git`. */
  gitRoot: string;
}

/** Statuses as events for the local git host: refused for a repository not under the root, old files read beneath. */
export const localHostStatuses = ({ gitRoot, ...opts }: LocalHostStatusesOptions): EventStoreCommitStatusStore =>
  new EventStoreCommitStatusStore({
    ...opts,
    assertRepo: async (repo) => void (await existingRepoDir(gitRoot, repo)),
    legacy: legacyStatusFiles(gitRoot),
  });

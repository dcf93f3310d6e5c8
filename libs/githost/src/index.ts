// What other packages use of the git host; everything else in local/ is the adapter's own.
export type { GitHost } from './port';
export { GitHostError, isGitHostError, type GitHostErrorCode } from './errors';
export { LocalGitAdmin, type OpenPullRequestInput, type PullRequestRecord, type UpdatePullRequestInput } from './local/admin';
export { LocalCodeHost, type LocalCodeHostOptions, type LocalHostEvent } from './local/code-host';
export { commitSummary, type CommitSummary } from './local/revisions';
export { commitTree, type CommitSpec, type Identity } from './local/commits';
export { type GitOptions, type GitResult } from './local/git';
export { runGit } from './local/git-helper';
export { LocalGitHost, type LocalGitHostOptions, type LocalGitHostStats } from './local/local-git-host';
export { DEFAULT_COMMITTER, LocalGitWriter, type LocalGitWriterOptions } from './local/local-git-writer';
export { mergeTree, type MergeTreeResult } from './local/merge-tree';
export {
  formatRepo,
  isObjectId,
  isValidBranchName,
  isValidPrNumber,
  isValidRepoRef,
  isValidRepoSegment,
  parseRepoSpec,
  repoDirOf,
} from './local/names';
export {
  PULL_FILE_VERSION,
  PULL_STATES,
  parsePullFile,
  pullFileOf,
  pullHeadRefOf,
  pullsDirOf,
  readPullFile,
  type PullFile,
  type PullState,
} from './local/pull-file';
export { RefReader, isValidRefName, parsePackedRefs } from './local/refs';
export { LocalRepoFacts } from './local/test-health-facts';
export { isProcessAlive } from './local/lock-owner';
export { existingRepoDir, repoDirOrThrow } from './local/repos';
export {
  COMMIT_STATUS_STATES,
  type CommitStatus,
  type CommitStatusInput,
  type CommitStatusListener,
  type CommitStatusState,
  type CommitStatusStore,
} from './statuses/port';
export { EventStoreCommitStatusStore, type EventStoreCommitStatusStoreOptions } from './statuses/event-store-statuses';
export { legacyStatusFiles, localHostStatuses, type LocalHostStatusesOptions } from './statuses/local-statuses';
export { COMMIT_STATUS_REPORTED, STATUS_STREAM_PREFIX, statusStreamOf, type CommitStatusReported } from './statuses/status-events';
export { statusFileOf, statusesDirOf } from './local/statuses-file';
export { MAX_CONTEXT_LENGTH, MAX_DESCRIPTION_LENGTH, MAX_TARGET_URL_LENGTH } from './statuses/validate';
export { MERGED_HEADS, StackPrefixes } from './local/stack-prefixes';
export {
  buildTestBranch,
  testBranchName,
  type BuildTestBranchInput,
  type BuildTestBranchResult,
  type StackConflict,
  type StackStep,
  type StackedPullRequest,
} from './local/test-branch';

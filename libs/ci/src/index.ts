export * from './config/railyard-config';
export * from './config/repo-config';
export * from './config/config-changes';
export * from './required-statuses';
export * from './status-outcome';
export * from './urls';
export * from './settings';
export * from './local-ci';
export * from './runner/local-ci-runner';
export * from './runner/outcome';
export { archivedLogOf, localLogIsAttempt, MAX_ARCHIVED_LOG_BYTES, runningAttemptOf, type LogArchive } from './runner/log-archive';
export { makeCheckout, removeCheckout } from './runner/checkout';
export { SANDBOX_UID, type CheckNetwork, type SandboxKind, type SandboxMode, type SandboxOptions } from './runner/sandbox';
export { DEFAULT_CHECK_LIMITS, type CheckLimits, type LimitName } from './runner/limits/limits';
export * from './intake/schema';
export * from './intake/commits';
export {
  COMMIT_STATUS_STATES,
  type CommitStatus,
  type CommitStatusInput,
  type CommitStatusListener,
  type CommitStatusStore,
} from '@railyard/githost';
export { EXPIRED_LOG_NOTE, isExpiredLog } from './retention/expired-log';
export { retentionCutoff } from './retention/cutoff';
export { sweepRetention, type RetentionOptions, type RetentionPass } from './retention/sweeper';

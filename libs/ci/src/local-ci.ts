import { LOCAL_CI_REPORTER, type CommitStatusState, type RepoRef } from '@railyard/domain';
import type { EventStore } from '@railyard/eventstore';
import { localHostStatuses, type CommitStatusStore } from '@railyard/githost';
import { errorFields, type Logger } from '@railyard/observability';
import { configChangesBetween } from './config/config-changes';
import { readRepoConfig } from './config/repo-config';
import {
  localChecksOf,
  resolveRequiredStatuses,
  type RequiredStatusesResult,
  type ResolveRequiredStatusesInput,
} from './required-statuses';
import { SANDBOX_FIX } from './runner/sandbox';
import { LocalCiRunner, type TriggerInput, type UploadReportsInput } from './runner/local-ci-runner';
import type { LogArchive } from './runner/log-archive';
import { infrastructureErrorOf, type CheckFinished, type InfrastructureError } from './runner/outcome';
import type { CiSettings } from './settings';

type GatedTrigger = TriggerInput & { configSha: string };

/** The CI side of one process: the status store, the local runner, and required-status resolution. */
export interface LocalCi {
  statusStore: CommitStatusStore;
  runner: LocalCiRunner;
  resolveRequiredStatuses(input: ResolveRequiredStatusesInput): Promise<RequiredStatusesResult>;
  /** The runner's and the store's calls the engine makes, delegated, so it can take this object as its CI. */
  /** `configSha` is required here: the engine's runs are always gated by their base's files. */
  trigger(input: GatedTrigger): Promise<void>;
  cancel(testRunId: string): Promise<void>;
  retry(input: GatedTrigger & { contexts: string[] }): Promise<void>;
  reapsPending(): number;
  isRunning(testRunId: string): boolean;
  reportsPending(testRunId: string): boolean;
  rerunsSameCommit(): boolean;
  /** The gating configuration files that differ between two commits (CiPort.configChanges). */
  configChanges(repo: RepoRef, from: string, to: string): Promise<string[]>;
  /** The checks `.railyard.yml` names at the run's config commit: the ones this CI runs again when asked. */
  rerunnableChecks(repo: RepoRef, sha: string, configSha: string): Promise<ReadonlySet<string>>;
  /**
   * The latest report of each context and reporter, latest last. `infrastructureError` marks an
   * `error` of the local CI that is no verdict on the code (docs/ci.md).
   */
  statuses(
    repo: RepoRef,
    sha: string,
  ): Promise<{ context: string; state: CommitStatusState; url?: string; reporter?: string; infrastructureError?: InfrastructureError }[]>;
  onChange(listener: (repo: RepoRef, sha: string) => void): () => void;
  close(): Promise<void>;
}

export interface CreateLocalCiOptions {
  settings: CiSettings;
  /** Where commit statuses are kept: every process sharing it sees them (docs/ci.md, "Commit statuses"). */
  eventStore: EventStore;
  /** Used when settings.publicUrl is unset: typically the URL the API ended up listening on. */
  publicUrl: () => string;
  logger?: Logger;
  uploadReports?: (input: UploadReportsInput) => Promise<void>;
  onCheckFinished?: (event: CheckFinished) => void;
  /** The blob store, where finished check logs are copied for APIs on other nodes (LocalCiRunnerOptions.logArchive). */
  logArchive?: LogArchive;
}

/** Neither bubblewrap nor the unshare sandbox can run checks here; the message says what to install, on one line. */
export class SandboxUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`the local CI cannot start: checks cannot be sandboxed here (${reason.replace(/\s*\n\s*/g, ' ')}); ${SANDBOX_FIX}`);
    this.name = 'SandboxUnavailableError';
  }
}

/**
 * Wires the pieces and clears checkouts a previous process left; close() stops running checks first.
 * Throws SandboxUnavailableError when checks cannot run in their sandbox (RAILYARD_CI_SANDBOX=off aside).
 */
export const createLocalCi = async (opts: CreateLocalCiOptions): Promise<LocalCi> => {
  const { settings } = opts;
  const statuses = localHostStatuses({
    eventStore: opts.eventStore,
    gitRoot: settings.gitRoot,
    actor: 'ci',
    onError: (err) => opts.logger?.error('commit status subscription failed', errorFields(err)),
  });
  const runner = new LocalCiRunner({
    gitRoot: settings.gitRoot,
    dataDir: settings.dataDir,
    statuses,
    publicUrl: () => settings.publicUrl ?? opts.publicUrl(),
    concurrency: settings.concurrency,
    killGraceMs: settings.killGraceMs,
    sandbox: { mode: settings.sandbox ?? 'auto', network: settings.network ?? 'none', hiddenPaths: settings.hiddenPaths ?? [] },
    ...(settings.limits ? { limits: settings.limits } : {}),
    ...(settings.cgroup ? { cgroup: settings.cgroup } : {}),
    ...(settings.niceness ? { niceness: settings.niceness } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.uploadReports ? { uploadReports: opts.uploadReports } : {}),
    ...(opts.onCheckFinished ? { onCheckFinished: opts.onCheckFinished } : {}),
    ...(opts.logArchive ? { logArchive: opts.logArchive } : {}),
  });
  // Without a sandbox for its checks the local CI does not start (D272): each check would only report
  // CI_SANDBOX_UNAVAILABLE, be retried and leave its PR stuck. The probe runs `true` in it once.
  const probe = await runner.checkSandbox();
  if (!probe.ok) {
    await runner.close();
    await statuses.close();
    throw new SandboxUnavailableError(probe.reason);
  }
  await runner.recover();
  return {
    statusStore: statuses,
    runner,
    resolveRequiredStatuses: (input) => resolveRequiredStatuses(settings.gitRoot, input),
    trigger: (input) => runner.trigger(input),
    cancel: (testRunId) => runner.cancel(testRunId),
    retry: ({ contexts, ...input }) => runner.retry(input, contexts),
    reapsPending: () => runner.reapsPending(),
    // A run whose checks ended counts until the engine records its verdict: a trigger meanwhile is a no-op.
    isRunning: (testRunId) => runner.knows(testRunId),
    // A run's reports are uploaded when its checks finish, so they are owed while it runs.
    reportsPending: (testRunId) => runner.isRunning(testRunId),
    rerunsSameCommit: () => true,
    configChanges: (repo, from, to) => configChangesBetween(settings.gitRoot, repo, from, to),
    rerunnableChecks: async (repo, _sha, configSha) => new Set(localChecksOf(await readRepoConfig(settings.gitRoot, repo, configSha))),
    // Every reporter's latest: the engine sorts out which count (the domain's gatingReports).
    statuses: async (repo, sha) =>
      (await statuses.reports(repo, sha)).map((s) => {
        // Only the local CI says an error is no verdict (a report from before reporters were is its own too):
        // a token's `error` worded like one is a failure, not a reason to run the check again.
        const own = s.reporter === undefined || s.reporter === LOCAL_CI_REPORTER;
        const infrastructureError = own ? infrastructureErrorOf(s) : undefined;
        return {
          context: s.context,
          state: s.state,
          ...(s.targetUrl ? { url: s.targetUrl } : {}),
          ...(s.reporter ? { reporter: s.reporter } : {}),
          ...(infrastructureError ? { infrastructureError } : {}),
        };
      }),
    onChange: (listener) => statuses.onChange(listener),
    close: async () => {
      await runner.close();
      await statuses.close();
    },
  };
};

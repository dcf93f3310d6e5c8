import { DEFAULT_SETTINGS, type QueueMode, type QueueRunState, type QueueSettings, type RequestableQueueState } from '../config';
import type { PullRequestSnapshot, SubmitPullRequest } from '../commands/types';
import type {
  ImpactedTargetsSet,
  PrCancelled,
  PrState,
  PrSubmitted,
  QueueConfigUpdated,
  QueueCreated,
  QueueDeleted,
  QueueStateChanged,
  Readiness,
  TargetsRef,
} from '../events';
import { queueIdOf, type RepoRef } from '../ids';
import type { QueueState } from '../state';

/** Builders for the `given` side of the specs. Defaults describe a ready PR in a single-mode queue on `main`. */
export const REPO: RepoRef = { host: 'github.com', owner: 'acme', name: 'rocket' };
export const BRANCH = 'main';
export const QUEUE_ID = queueIdOf(REPO, BRANCH);

/** Minute `m` of the history, well before the spec's NOW. */
export const at = (m: number): string => new Date(Date.UTC(2025, 5, 1, 9, m)).toISOString();

export const headShaOf = (prNumber: number): string => `sha-${prNumber}`;

export const queueCreated = (
  o: { settings?: Partial<QueueSettings>; requiredStatuses?: string[]; state?: RequestableQueueState; at?: string } = {},
): QueueCreated => ({
  type: 'QueueCreated',
  data: {
    queueId: QUEUE_ID,
    repo: REPO,
    branch: BRANCH,
    settings: { ...DEFAULT_SETTINGS, ...o.settings },
    requiredStatuses: o.requiredStatuses ?? [],
    state: o.state ?? 'running',
    at: o.at ?? at(0),
  },
});

export const queueConfigUpdated = (
  changes: Partial<QueueSettings>,
  requiredStatuses?: string[] | null,
  when = at(1),
): QueueConfigUpdated => ({
  type: 'QueueConfigUpdated',
  data: { changes, ...(requiredStatuses !== undefined ? { requiredStatuses } : {}), at: when },
});

export const queueStateChanged = (from: QueueRunState, to: QueueRunState, pendingMode?: QueueMode, when = at(1)): QueueStateChanged => ({
  type: 'QueueStateChanged',
  data: { from, to, ...(pendingMode ? { pendingMode } : {}), at: when },
});

export const queueDeleted = (when = at(50)): QueueDeleted => ({ type: 'QueueDeleted', data: { at: when } });

export const readiness = (o: Partial<Readiness> = {}): Readiness => ({
  requiresImpactedTargets: false,
  doesBaseBranchMatch: true,
  hasImpactedTargets: false,
  mergeability: 'mergeable',
  ...o,
});

/** A submission as decide would have recorded it; `entryId` defaults to `entry-<n>`. */
export const prSubmitted = (prNumber: number, o: Partial<PrSubmitted['data']> = {}): PrSubmitted => ({
  type: 'PrSubmitted',
  data: {
    entryId: `entry-${prNumber}`,
    prNumber,
    title: `PR ${prNumber}`,
    headSha: headShaOf(prNumber),
    author: 'octocat',
    baseBranch: BRANCH,
    priorityValue: 100,
    priorityName: 'medium',
    usedDefaultPriorityName: 'medium',
    noBatch: false,
    readiness: readiness(),
    state: 'pending',
    reason: 'API_REQUESTED',
    at: at(prNumber),
    ...o,
  },
});

export const prCancelled = (prNumber: number, when = at(40)): PrCancelled => ({
  type: 'PrCancelled',
  data: { prNumber, reason: 'API_REQUESTED', at: when },
});

export const targets = (digest: string, o: Partial<TargetsRef> = {}): TargetsRef => ({ digest, count: 3, all: false, ...o });

export const targetsSet = (prNumber: number, digest: string, headSha = headShaOf(prNumber), when = at(30)): ImpactedTargetsSet => ({
  type: 'ImpactedTargetsSet',
  data: { prNumber, headSha, ...targets(digest), at: when },
});

export const pullRequest = (number: number, o: Partial<PullRequestSnapshot> = {}): PullRequestSnapshot => ({
  number,
  title: `PR ${number}`,
  author: 'octocat',
  headSha: headShaOf(number),
  baseBranch: BRANCH,
  state: 'open',
  mergeability: 'mergeable',
  ...o,
});

export const submit = (
  number: number,
  o: Partial<Omit<SubmitPullRequest, 'type' | 'pr'>> & { pr?: Partial<PullRequestSnapshot> } = {},
): SubmitPullRequest => {
  const { pr, ...rest } = o;
  return { type: 'SubmitPullRequest', pr: pullRequest(number, pr), ...rest };
};

/**
 * For `given(history, adjust)`: puts a PR into a state no event of the domain reaches yet (testing,
 * tests_passed, pending_failure, merged, failed come from the engine's events).
 */
export const withEntryIn =
  (prNumber: number, state: PrState) =>
  (s: QueueState): void => {
    const e = s.entries.get(prNumber);
    if (!e) throw new Error(`no entry for PR #${prNumber}`);
    s.entries.set(prNumber, { ...e, state });
  };

/** Priority values at and around each boundary of the naming rule, with the name each gets. */
export const PRIORITY_NAME_CASES = [
  [0, 'urgent'],
  [1, 'high'],
  [10, 'high'],
  [11, 'medium'],
  [50, 'medium'],
  [100, 'medium'],
  [101, 'low'],
  [200, 'low'],
  [255, 'low'],
] as const;

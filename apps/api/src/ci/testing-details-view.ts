import { isLocalCheckUrl, joinUrl, pullRequestPath } from '@railyard/ci';
import type { RepoRef, TargetsRef } from '@railyard/domain';
import type { TestRunPr, TestRunReportedStatus, TestRunView } from '@railyard/readmodels';

export interface CheckRun {
  name: string;
  url: string;
  status: 'QUEUED' | 'IN_PROGRESS' | 'COMPLETED';
  conclusion?: 'SUCCESS' | 'FAILURE' | 'CANCELLED' | 'TIMED_OUT';
}

/** The spec's Test run object, plus the run's id. */
export interface TestingDetailsResponse {
  testRunId: string;
  requiredStatuses: string[];
  requiredStatusesSource: TestRunView['requiredStatusesSource'];
  testBranch: string;
  testBranchSha: string;
  checkSuites: { name: string; checkRuns: CheckRun[] }[];
  statusChecks: { context: string; url?: string; state: 'PENDING' | 'SUCCESS' | 'FAILURE' | 'ERROR' }[];
  testedPullRequests: { prNumber: number; prUrl: string; title: string }[];
  createdAt: string;
  status: TestRunView['status'];
  dependentPrs: number[];
  impactedTargets?: string[];
  impactedTargetsForTestedPrs?: string[];
}

/** The check suite the local CI's checks are listed under. */
export const LOCAL_CI_SUITE = 'railyard-ci';

// A check still pending when its run ended was stopped by the engine (or by the timeout) with it.
const checkRunOf = (run: TestRunView, s: TestRunReportedStatus): CheckRun => {
  const base = { name: s.context, url: s.url ?? '' };
  const stoppedAs = run.outcome?.kind === 'timed_out' ? 'TIMED_OUT' : 'CANCELLED';
  switch (s.state) {
    case 'success':
      return { ...base, status: 'COMPLETED', conclusion: 'SUCCESS' };
    case 'failure':
      return { ...base, status: 'COMPLETED', conclusion: 'FAILURE' };
    case 'error':
      return {
        ...base,
        status: 'COMPLETED',
        conclusion: run.outcome && run.outcome.kind !== 'succeeded' && run.outcome.kind !== 'failed' ? stoppedAs : 'FAILURE',
      };
    default:
      return run.outcome && run.outcome.kind !== 'succeeded'
        ? { ...base, status: 'COMPLETED', conclusion: stoppedAs }
        : { ...base, status: 'IN_PROGRESS' };
  }
};

/**
 * Impacted targets of a set of PRs: the union of their uploads, `["ALL"]` when one impacts
 * everything, undefined when none of them uploaded (the field is then left out, as the spec says).
 */
export const targetsUnion = async (prs: TestRunPr[], load: (ref: TargetsRef) => Promise<string[]>): Promise<string[] | undefined> => {
  const refs = prs.flatMap((p) => (p.targets ? [p.targets] : []));
  if (refs.length === 0) return undefined;
  if (refs.some((r) => r.all)) return ['ALL'];
  const names = new Set<string>();
  for (const ref of refs) for (const name of await load(ref)) names.add(name);
  return [...names].sort();
};

export interface DetailsContext {
  repo: RepoRef;
  /** Base of the PR URLs. */
  baseUrl: string;
  loadTargets: (ref: TargetsRef) => Promise<string[]>;
}

export const testingDetailsResponse = async (run: TestRunView, ctx: DetailsContext): Promise<TestingDetailsResponse> => {
  const local = run.statuses.filter((s) => isLocalCheckUrl(s.url, run.testRunId, s.context));
  const [all, tested] = await Promise.all([
    targetsUnion([...run.testedPrs, ...run.dependentPrs], ctx.loadTargets),
    targetsUnion(run.testedPrs, ctx.loadTargets),
  ]);
  return {
    testRunId: run.testRunId,
    requiredStatuses: run.requiredStatuses,
    requiredStatusesSource: run.requiredStatusesSource,
    testBranch: run.testBranch,
    testBranchSha: run.testBranchSha,
    checkSuites: local.length > 0 ? [{ name: LOCAL_CI_SUITE, checkRuns: local.map((s) => checkRunOf(run, s)) }] : [],
    statusChecks: run.statuses.map((s) => ({
      context: s.context,
      ...(s.url ? { url: s.url } : {}),
      state: s.state.toUpperCase() as 'PENDING',
    })),
    testedPullRequests: run.testedPrs.map((p) => ({
      prNumber: p.prNumber,
      prUrl: joinUrl(ctx.baseUrl, pullRequestPath(ctx.repo, p.prNumber)),
      title: p.title,
    })),
    createdAt: run.createdAt,
    status: run.status,
    dependentPrs: run.dependentPrs.map((p) => p.prNumber),
    ...(all ? { impactedTargets: all } : {}),
    ...(tested ? { impactedTargetsForTestedPrs: tested } : {}),
  };
};

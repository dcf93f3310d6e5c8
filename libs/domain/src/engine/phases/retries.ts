import type { QuarantinedFailure } from '../../events-engine';
import type { TestRun } from '../../state';
import type { Action } from '../actions';
import { flakeRetriesFor, record, retriesBeside, type Ctx } from '../context';
import { describeTests, judgeFailure, type FailureVerdict } from '../flake-rule';
import { besideSlotFree, busyRuns } from './stacks';

/**
 * What the test results uploaded for the run's commit say of its failure, with what is known from
 * before: a genuine failure stays genuine, and a half bisection convicted without running inherits
 * the genuine failure of the batch it splits. Results are read by commit,
 * so a re-run also sees the results of the attempts before it (docs/engine.md, Flakes).
 */
export const verdictOf = (c: Ctx, run: TestRun): FailureVerdict => {
  const verdict = judgeFailure(c.facts.testResults?.get(run.testBranchSha));
  if (verdict.kind === 'genuine') return verdict;
  // A run that failed is judged on its own results; one bisection convicted without running, on the batch's.
  const known = run.status === 'failed' ? run.judgement === 'genuine' : run.genuineFailure === true;
  return known ? { kind: 'genuine', tests: [] } : verdict;
};

/** Whether the run's failure is known to be real: then no witness, no re-run, blame at once. */
export const failedGenuinely = (c: Ctx, run: TestRun): boolean => verdictOf(c, run).kind === 'genuine';

/**
 * The required checks that failed only through quarantined tests, when that covers every failed check:
 * each failed check names a quarantined failing test, or a single failed check without a name.
 * Undefined when a failed check is not covered: then the run fails.
 */
export const quarantineWaiver = (failedContexts: readonly string[], verdict: FailureVerdict): QuarantinedFailure[] | undefined => {
  if (verdict.kind !== 'quarantined' || failedContexts.length === 0) return undefined;
  const named = verdict.tests.filter((t) => t.context !== undefined);
  const unnamed = verdict.tests.filter((t) => t.context === undefined);
  const out: QuarantinedFailure[] = [];
  for (const context of failedContexts) {
    const tests = named.filter((t) => t.context === context);
    if (tests.length > 0) out.push({ context, tests: tests.map((t) => t.name) });
    else if (failedContexts.length === 1 && unnamed.length > 0) out.push({ context, tests: unnamed.map((t) => t.name) });
    else return undefined;
  }
  return out;
};

export type RetryDecision = { kind: 'retry'; action: Action } | { kind: 'wait' } | { kind: 'none' };

/**
 * Whether a failed run is re-run on the same commit before its PRs are blamed or its batch is split
 * (flakeRetries, docs/engine.md, Flakes): only while re-runs are left for this failure, only when the
 * failure may be a flake (never a genuine one), and only in a free slot of its kind (`wait` until one
 * frees: blaming meanwhile would eject a PR a re-run could clear). A bisection half that bisection
 * convicted without running (cancelled, skip-redundant) is a failure inferred from a batch's failure:
 * it is run on the same commit unless that failure was genuine.
 */
export const retryDecision = (c: Ctx, run: TestRun): RetryDecision => {
  const attempt = (run.retry?.attempt ?? 0) + 1;
  const allowed = flakeRetriesFor(c.s, run);
  if (attempt > allowed) return { kind: 'none' };
  // A re-run nobody would run waits for ever (docs/engine.md, Flakes).
  if (c.facts.sameCommitReruns === false) return { kind: 'none' };
  const rerunnable = c.facts.rerunnable?.get(run.testBranchSha);
  if (rerunnable && run.failedContexts.some((context) => !rerunnable.has(context))) return { kind: 'none' };
  const inferred = run.status === 'cancelled' && run.bisection;
  if (run.status !== 'failed' && !inferred) return { kind: 'none' };
  const verdict = verdictOf(c, run);
  if (verdict.kind === 'genuine') return { kind: 'none' };
  const budget = run.bisection ? c.s.settings.bisectionConcurrency : c.s.settings.concurrency;
  // A lone PR's re-run goes beside the queue while that budget has room; past it, it waits for a queue slot.
  const beside = retriesBeside(c.s) && !run.bisection && run.prNumbers.length === 1 && besideSlotFree(c);
  if (!beside && busyRuns(c, run.bisection) >= budget) return { kind: 'wait' };
  const cause = inferred ? 'INFERRED_FAILURE' : verdict.kind === 'unknown' ? 'NO_TEST_RESULTS' : 'FLAKY_TESTS';
  const detail = inferred
    ? `bisection convicted PR(s) ${run.prNumbers.map((n) => `#${n}`).join(', ')} without a failing run of their own, from a failure that may be a flake; run ${attempt} of ${allowed} on the same commit`
    : verdict.kind === 'unknown'
      ? `required check(s) ${run.failedContexts.join(', ') || 'unknown'} failed and no test results name a failing test; re-run ${attempt} of ${allowed} on the same commit`
      : `only tests classified flaky or quarantined failed: ${describeTests(verdict.tests)}; re-run ${attempt} of ${allowed} on the same commit`;
  return { kind: 'retry', action: record({ type: 'RetryTestRun', testRunId: run.testRunId, cause, detail }) };
};

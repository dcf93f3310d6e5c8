import type { RestartReason } from '../events';
import { readinessOf, sameReadiness } from '../readiness';
import { activeEntries, targetsFor, type Entry, type QueueState, type TestRun } from '../state';
import type { Action } from './actions';
import type { EngineCommand } from './commands';
import type { HostFacts } from './facts';
import { planOrder } from './order';
import { afterStep, beforeStep, currentRun, isRunNeeded, requiredOutcome, stackOf } from './runs';

interface Ctx {
  s: QueueState;
  nowMs: number;
  facts: HostFacts;
  order: Entry[];
  /** Entries that hold a place in the speculation chain: started at least once in this cycle. */
  chain: Entry[];
}

type Phase = (c: Ctx) => Action[];

const record = (command: EngineCommand): Action => ({ kind: 'record', command });
const TERMINAL_STATUS = new Set(['success', 'failure', 'error']);

/**
 * The merge engine's brain, single mode: what to do next for one queue, given its state, the time and
 * what the host and CI say now. Pure. Phases run in order and the first with something to do wins;
 * the engine carries those actions out, records them and plans again until nothing is left. Doing
 * one kind of thing per round keeps every decision based on a state that already holds the previous
 * ones (a merge is recognised before anything could mistake it for a foreign push, restarts land
 * before new runs are stacked, and so on).
 */
export const plan = (s: QueueState, now: string, facts: HostFacts): Action[] => {
  if (!s.exists) return [];
  const order = planOrder(s);
  const c: Ctx = { s, nowMs: Date.parse(now), facts, order, chain: order.filter((e) => e.flightSeq !== undefined) };
  for (const phase of PHASES) {
    const actions = phase(c);
    if (actions.length > 0) return actions;
  }
  return [];
};

/** Where the entry sits in its run's stack, and the PRs stacked under it. */
const positionIn = (run: TestRun, prNumber: number): { index: number; deps: number[] } => {
  const stack = stackOf(run);
  const index = stack.indexOf(prNumber);
  return { index, deps: stack.slice(0, Math.max(index, 0)) };
};

const mergedPrefix = (s: QueueState, deps: number[]): number => {
  let m = 0;
  while (m < deps.length && s.entries.get(deps[m] as number)?.state === 'merged') m++;
  return m;
};

/**
 * Why the run deciding `e` no longer predicts what its merge would produce, or undefined while it
 * does: something stacked under it left the queue, an entry ahead that will merge first is missing
 * from its stack, or the target branch holds a tree the run did not start from.
 */
export const staleness = (c: Pick<Ctx, 's' | 'facts' | 'chain'>, e: Entry, run: TestRun): RestartReason | undefined => {
  const { deps } = positionIn(run, e.prNumber);
  const m = mergedPrefix(c.s, deps);
  const unmerged = deps.slice(m);
  for (const d of unmerged) {
    const de = c.s.entries.get(d);
    if (!de || de.state === 'cancelled' || de.state === 'not_ready') return 'PREREQUISITE_MERGE_ITEM_CANCELLED';
    if (de.state === 'failed') return 'PREREQUISITE_MERGE_ITEM_FAILED';
    if (de.state === 'merged') return 'PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED';
  }
  const stacked = new Set(unmerged);
  for (const ahead of c.chain) {
    if (ahead.prNumber === e.prNumber) break;
    // A suspect ahead (pending failure) may be left out; anything else ahead will merge first and must be under this run.
    if (ahead.state !== 'pending_failure' && !stacked.has(ahead.prNumber)) return 'PREREQUISITE_MERGE_ITEM_FAILED';
  }
  const expected = beforeStep(run, m);
  if (c.facts.target && expected && c.facts.target.tree !== expected.tree) return 'MANUAL_PUSH_TO_TARGET_BRANCH';
  return undefined;
};

/** A crash between moving the target and recording the merge leaves the target holding the PR: record it. */
const recogniseMerges: Phase = (c) => {
  const target = c.facts.target;
  if (!target) return [];
  const head = c.chain[0];
  if (head?.state === 'tests_passed') {
    const run = currentRun(c.s, head);
    if (!run) return [];
    const { index } = positionIn(run, head.prNumber);
    const before = beforeStep(run, index);
    const after = afterStep(run, index);
    if (before && after && after.tree !== before.tree && target.tree === after.tree)
      return [{ kind: 'completeMerge', prNumber: head.prNumber, mergeSha: target.sha, testRunId: run.testRunId, reason: 'MERGE_GRAPH_MERGE' }];
    return [];
  }
  const dm = c.facts.directMerge;
  const first = c.order[0];
  if (head === undefined && dm && first?.prNumber === dm.prNumber && first.headSha === dm.headSha && c.s.settings.directMergeMode === 'always' && target.tree === dm.headTree)
    return [{ kind: 'completeMerge', prNumber: first.prNumber, mergeSha: target.sha, reason: 'MERGE_GRAPH_DIRECT_MERGE' }];
  return [];
};

/** Pushes, closes and retargets cancel; a waiting PR the host now calls mergeable is admitted. */
const hostChanges: Phase = (c) => {
  const out: Action[] = [];
  for (const e of activeEntries(c.s)) {
    const pr = c.facts.pulls.get(e.prNumber);
    if (!pr || pr.state === 'merged') continue;
    if (pr.state === 'closed') out.push(record({ type: 'CancelForHostChange', prNumber: e.prNumber, reason: 'PR_CLOSED' }));
    else if (pr.headSha !== e.headSha) out.push(record({ type: 'CancelForHostChange', prNumber: e.prNumber, reason: 'PR_PUSHED_TO' }));
    else if (pr.baseBranch !== c.s.branch && e.readiness.doesBaseBranchMatch)
      out.push(record({ type: 'CancelForHostChange', prNumber: e.prNumber, reason: 'PR_BASE_BRANCH_CHANGED' }));
    else if (pr.mergeability !== undefined && (e.state === 'not_ready' || (e.state === 'pending' && e.flightSeq === undefined))) {
      const readiness = readinessOf({
        mode: c.s.settings.mode,
        queueBranch: c.s.branch,
        baseBranch: pr.baseBranch,
        mergeability: pr.mergeability,
        hasImpactedTargets: targetsFor(c.s, e.prNumber, e.headSha) !== undefined,
      });
      if (!sameReadiness(readiness, e.readiness))
        out.push(record({ type: 'RefreshReadiness', prNumber: e.prNumber, headSha: pr.headSha, baseBranch: pr.baseBranch, mergeability: pr.mergeability }));
    }
  }
  return out;
};

const testingRuns = (s: QueueState): TestRun[] => [...s.runs.values()].filter((r) => r.status === 'testing');

const statusReports: Phase = (c) =>
  testingRuns(c.s).flatMap((run) =>
    (c.facts.statuses.get(run.testBranchSha) ?? [])
      .filter((st) => {
        const seen = run.statuses[st.context];
        if (!seen) return true;
        if (TERMINAL_STATUS.has(seen.state) && st.state === 'pending') return false;
        return seen.state !== st.state || seen.url !== st.url;
      })
      .map((st) => record({ type: 'ReportTestStatus', testRunId: run.testRunId, context: st.context, state: st.state, ...(st.url !== undefined ? { url: st.url } : {}) })),
  );

/** Why a running run has no PR left testing on it: the word the cancellation records. */
const obsoleteReason = (s: QueueState, run: TestRun): string => {
  const states = run.prNumbers.map((n) => s.entries.get(n)?.state);
  if (states.includes('cancelled')) return 'PR_CANCELLED';
  if (states.includes('pending')) return 'TESTS_RESTARTED';
  return 'SUPERSEDED';
};

const runOutcomes: Phase = (c) => {
  const out: Action[] = [];
  const timeoutMs = c.s.settings.testingTimeoutMinutes * 60_000;
  for (const run of testingRuns(c.s)) {
    if (!isRunNeeded(c.s, run)) {
      out.push(record({ type: 'CancelTestRun', testRunId: run.testRunId, reason: obsoleteReason(c.s, run) }));
      continue;
    }
    if (c.nowMs - Date.parse(run.createdAt) >= timeoutMs) {
      out.push(record({ type: 'CompleteTestRun', testRunId: run.testRunId, outcome: 'timed_out' }));
      continue;
    }
    const outcome = requiredOutcome(run);
    if (outcome.kind === 'passed') out.push(record({ type: 'CompleteTestRun', testRunId: run.testRunId, outcome: 'passed' }));
    if (outcome.kind === 'failed')
      out.push(record({ type: 'CompleteTestRun', testRunId: run.testRunId, outcome: 'failed', failedContexts: outcome.failedContexts }));
  }
  return out;
};

/**
 * canOptimisticallyMerge: a run that passed with PRs stacked under it proves them. A PR pending
 * failure is cleared this way only when the queue waits for successors (pendingFailureDepth > 0):
 * that is the anti-flake protection of reference trunk §4.4.
 */
const optimisticPasses: Phase = (c) => {
  if (!c.s.settings.canOptimisticallyMerge) return [];
  const out: Action[] = [];
  const proven = new Set<number>();
  for (const e of c.chain) {
    const run = currentRun(c.s, e);
    if (e.state !== 'tests_passed' || !run || run.status !== 'succeeded' || !run.prNumbers.includes(e.prNumber)) continue;
    if (staleness(c, e, run) !== undefined) continue;
    for (const d of run.dependentPrs) {
      const de = c.s.entries.get(d);
      if (!de || proven.has(d)) continue;
      if (de.state === 'testing' || (de.state === 'pending_failure' && c.s.settings.pendingFailureDepth > 0)) {
        proven.add(d);
        out.push(record({ type: 'PassBySuccessor', prNumber: d, testRunId: run.testRunId }));
      }
    }
  }
  return out;
};

const failureDetail = (run: TestRun): string => {
  const parts = run.failedContexts.map((ctx) => {
    const url = run.statuses[ctx]?.url;
    return url ? `${ctx} (${url})` : ctx;
  });
  return `required status check(s) failed: ${parts.join(', ') || 'unknown'}`;
};

/**
 * Runs that no longer predict their merge restart. A PR pending failure is blamed once everything
 * stacked under it merged (so the failure is its own) and the `pendingFailureDepth` successors that
 * stacked it have finished; when a PR under it failed instead, the staleness rule restarts it
 * without that PR.
 */
const restartsAndBlame: Phase = (c) => {
  const restarts: Action[] = [];
  for (const e of c.chain) {
    const run = currentRun(c.s, e);
    if (!run) continue;
    const reason = staleness(c, e, run);
    if (reason) restarts.push(record({ type: 'RestartTests', prNumber: e.prNumber, reason }));
  }
  if (restarts.length > 0) return restarts;

  const blamed: Action[] = [];
  const depth = c.s.settings.pendingFailureDepth;
  for (const [i, e] of c.chain.entries()) {
    const run = currentRun(c.s, e);
    if (e.state !== 'pending_failure' || !run) continue;
    const { deps } = positionIn(run, e.prNumber);
    if (mergedPrefix(c.s, deps) < deps.length) continue;
    const successors = c.chain
      .slice(i + 1)
      .map((b) => currentRun(c.s, b))
      .filter((r): r is TestRun => r !== undefined && r.dependentPrs.includes(e.prNumber))
      .slice(0, depth);
    if (successors.some((r) => r.status === 'testing')) continue;
    blamed.push(record({ type: 'FailPr', prNumber: e.prNumber, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', detail: failureDetail(run), testRunId: run.testRunId }));
  }
  return blamed;
};

const mayMerge = (s: QueueState): boolean => s.runState !== 'paused';

/** Only the head of the chain merges, so PRs land in queue order; the next one merges on the next round. */
const merges: Phase = (c) => {
  const head = c.chain[0];
  const target = c.facts.target;
  if (!mayMerge(c.s) || !target || head?.state !== 'tests_passed') return [];
  const run = currentRun(c.s, head);
  if (!run) return [];
  const { index } = positionIn(run, head.prNumber);
  const before = beforeStep(run, index);
  const after = afterStep(run, index);
  if (!before || !after || target.tree !== before.tree) return [];
  if (after.tree === before.tree)
    return [{ kind: 'completeMerge', prNumber: head.prNumber, mergeSha: target.sha, testRunId: run.testRunId, reason: 'MERGE_GRAPH_MERGE' }];
  return [{ kind: 'merge', prNumber: head.prNumber, testRunId: run.testRunId, index, before, after }];
};

const directMerge: Phase = (c) => {
  const dm = c.facts.directMerge;
  const first = c.order[0];
  const target = c.facts.target;
  if (!mayMerge(c.s) || c.s.settings.directMergeMode !== 'always' || c.chain.length > 0 || !dm || !target) return [];
  if (first?.state !== 'pending' || first.prNumber !== dm.prNumber || first.headSha !== dm.headSha || !dm.upToDate) return [];
  return [{ kind: 'directMerge', prNumber: first.prNumber, headSha: first.headSha, baseSha: target.sha }];
};

/**
 * Starts runs in chain order while slots are free. Each stacks, on the target's head, every entry
 * ahead that is testing or passed (Zuul's speculative parent): what the target will be when its turn
 * comes. Suspects (pending failure) are left out, and the walk stops at the first entry that cannot
 * start, so no PR overtakes one ahead of it.
 */
const starts: Phase = (c) => {
  const target = c.facts.target;
  if (!mayMerge(c.s) || !target) return [];
  const busy = testingRuns(c.s).filter((r) => !r.bisection && isRunNeeded(c.s, r)).length;
  let slots = c.s.settings.concurrency - busy;
  const out: Action[] = [];
  const stack: Entry[] = [];
  for (const e of c.order) {
    if (e.state === 'testing' || e.state === 'tests_passed') stack.push(e);
    if (e.state !== 'pending') continue;
    if (slots <= 0) break;
    const prs = [...stack, e].map((x) => ({ number: x.prNumber, headSha: x.headSha, title: x.title }));
    out.push({ kind: 'startRun', prNumber: e.prNumber, stack: prs, dependentPrs: stack.map((x) => x.prNumber), baseSha: target.sha, baseTree: target.tree });
    stack.push(e);
    slots--;
  }
  return out;
};

/** Test branches of runs the state no longer holds (ended and unneeded, or never recorded after a crash). */
const sweepBranches: Phase = (c) =>
  c.facts.testBranches.filter((b) => !c.s.runs.has(b.testRunId)).map((b): Action => ({ kind: 'deleteBranch', branch: b.branch }));

const PHASES: Phase[] = [recogniseMerges, hostChanges, statusReports, runOutcomes, optimisticPasses, restartsAndBlame, merges, directMerge, starts, sweepBranches];

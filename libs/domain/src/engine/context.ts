import { MAX_FLAKE_RETRIES, MAX_VOUCHED_RETRIES } from '../config';
import { FLAKY_QUEUE_RERUN_PASSES } from './rerun-passes';
import type { Entry, QueueState, TestRun } from '../state';
import type { Action } from './actions';
import type { EngineCommand } from './commands';
import type { HostFacts } from './facts';
import { parallelGraph, singleGraph, type DepGraph, type Positions } from './graph';
import { placeIn, planOrderIndexOf } from '../entry-order';
import { currentRun, stackOf } from './runs';

/** What every phase of one planning round sees. */
export interface Ctx {
  s: QueueState;
  nowMs: number;
  facts: HostFacts;
  /** The plan order, copied out of the state's index on first use (planning a paused queue never needs it). */
  readonly order: Entry[];
  /** Place of an entry (by PR number) in `order`, a search in the state's index. */
  pos: Positions;
  /** Entries that hold a place in flight: started at least once in this cycle, in that order. */
  chain: Entry[];
  graph: DepGraph;
  /** Target heads the queue's own merges lead back from, starting at the target's head (parallel mode). */
  ownHeads: () => ReadonlySet<string>;
}

export type Phase = (c: Ctx) => Action[];

export const record = (command: EngineCommand): Action => ({ kind: 'record', command });

export const contextOf = (s: QueueState, now: string, facts: HostFacts): Ctx => {
  const index = planOrderIndexOf(s.entries);
  let order: Entry[] | undefined;
  const orderOf = (): Entry[] => (order ??= [...index.started, ...index.waiting]);
  const pos: Positions = {
    get: (prNumber) => {
      const e = s.entries.get(prNumber);
      return e === undefined ? undefined : placeIn(index, e);
    },
  };
  const graph = s.settings.mode === 'parallel' ? parallelGraph(s, orderOf(), pos, facts.overlaps) : singleGraph(orderOf, pos);
  let heads: Set<string> | undefined;
  return {
    s,
    nowMs: Date.parse(now),
    facts,
    get order() {
      return orderOf();
    },
    pos,
    chain: [...index.started],
    graph,
    ownHeads: () => (heads ??= headsBehind(s, facts.target?.sha)),
  };
};

/** The target's head and every head the queue's own recorded merges lead back to from it. */
const headsBehind = (s: QueueState, sha: string | undefined): Set<string> => {
  const out = new Set<string>();
  for (let at = sha; at !== undefined && !out.has(at); at = s.mergedOnto.get(at)) out.add(at);
  return out;
};

/** Entries sorted by their place in the plan order. */
export const inPlanOrder = (c: Ctx, entries: Iterable<Entry>): Entry[] =>
  [...entries].sort((a, b) => (c.pos.get(a.prNumber) ?? 0) - (c.pos.get(b.prNumber) ?? 0));

export const testingRuns = (s: QueueState): TestRun[] => [...s.runs.values()].filter((r) => r.status === 'testing');

/**
 * A suspect may be the cause of a failure: it is pending failure, or testing in a bisection run (part
 * of a failed batch being split), or in the re-run of a failure it stepped aside for or holds its
 * place on while the runs behind judge it (heldOnSuspicion). New runs leave suspects out of their
 * stacks, as Zuul re-parents items behind a failing one (peers §2.5), and nothing behind a suspect
 * merges before it is settled.
 */
export const isSuspect = (s: QueueState, e: Entry): boolean => {
  if (e.state === 'pending_failure') return true;
  if (e.state !== 'testing') return false;
  return currentRun(s, e)?.bisection === true || steppedAside(s, e) || heldOnSuspicion(s, e);
};

/**
 * Whether a failed PR's re-run goes on beside the queue (docs/engine.md, Flakes): re-runs are on and
 * no anti-flake witnesses are asked for, so nothing behind a failure waits for its re-run.
 */
export const retriesBeside = (s: QueueState): boolean =>
  s.settings.flakeRetries > 0 && !(s.settings.canOptimisticallyMerge && s.settings.pendingFailureDepth > 0);

/** Re-runs for a failure only its own re-runs can judge, in a queue whose re-runs pass: one more. */
const unwitnessedRetries = (flakeRetries: number): number => Math.min(flakeRetries + 1, Math.max(flakeRetries, MAX_FLAKE_RETRIES));

/**
 * How many re-runs a failure may have: `flakeRetries`; up to MAX_FLAKE_RETRIES for a PR holding its
 * place whose re-runs keep failing on flaky tests only (D311), since another flake in a row is rarer
 * than a PR ejected for it; up to MAX_VOUCHED_RETRIES for one holding its place after a run stacked
 * on it passed (D336, D345): its change passed once. A genuine failure never gets more, nor an
 * unknown one nothing vouches for.
 */
export const flakeRetriesFor = (s: QueueState, run: TestRun): number => {
  const { flakeRetries } = s.settings;
  if (flakeRetries === 0 || run.retry === undefined) return flakeRetries;
  if (unwitnessed(s, run)) return unwitnessedRetries(flakeRetries);
  if (!holdsPlace(s, run)) return flakeRetries;
  if (s.entries.get(run.prNumbers[0] as number)?.successorPassed === true) return Math.max(flakeRetries, MAX_VOUCHED_RETRIES);
  return run.judgement === 'flaky' ? Math.max(flakeRetries, MAX_FLAKE_RETRIES) : flakeRetries;
};

/** A re-run of a PR that failed alone, going on beside the queue: it counts against `flakeRetryConcurrency` first. */
export const isBesideRetry = (s: QueueState, run: TestRun): boolean =>
  retriesBeside(s) && run.retry !== undefined && !run.bisection && run.prNumbers.length === 1;

/**
 * A PR that failed alone and stands beside the queue until its failure is settled: pending failure
 * on a run of its own, or testing in that run's re-run. The PRs behind take the failure as real: their
 * runs leave it out, and they may merge past it; its re-run is judged on the commit that failed.
 */
export const steppedAside = (s: QueueState, e: Entry): boolean => {
  if (!retriesBeside(s) || (e.state !== 'pending_failure' && e.state !== 'testing')) return false;
  const run = currentRun(s, e);
  if (!run || run.bisection || run.prNumbers.length !== 1 || holdsPlace(s, run)) return false;
  return e.state === 'pending_failure' || run.retry !== undefined;
};

/**
 * Whether a lone PR's failure named only tests classified flaky (its run's judgement, or what its
 * re-run was started for): then it is most likely a flake, so the PR keeps its place while it is
 * re-run beside the queue, and the runs stacked on it go on instead of restarting without it (D310).
 * A genuine or unknown failure steps aside instead (steppedAside), a re-run that failed genuinely too.
 */
export const holdsPlace = (s: QueueState, run: TestRun): boolean => {
  if (!retriesBeside(s) || run.bisection || run.prNumbers.length !== 1 || run.judgement === 'genuine') return false;
  if (run.retry ? run.retry.cause === 'FLAKY_TESTS' : run.judgement === 'flaky') return true;
  return heldOnUnknown(s, run);
};

/**
 * With `unknownFailuresHoldPlace` (on by default, D322, D336), a lone failure that no test results name
 * keeps its place while no run stacked on its PR has failed since (Entry.successorFailed), or once one
 * passed (Entry.successorPassed): the runs already stacked on it go on and include its change, so the
 * first of them to pass vouches for it, and the first to fail before that is evidence of a real break,
 * after which it steps aside (steppedAside) as any unknown failure does.
 */
const heldOnUnknown = (s: QueueState, run: TestRun): boolean => {
  if (!s.settings.unknownFailuresHoldPlace) return false;
  const unknown = run.retry ? run.retry.cause === 'NO_TEST_RESULTS' : run.status === 'failed' && run.judgement !== 'flaky';
  const e = s.entries.get(run.prNumbers[0] as number);
  // Without a run stacked on it nobody can judge it, and the PRs behind would wait for its re-run in vain.
  return unknown && e?.hasSuccessor === true && (e.successorFailed !== true || e.successorPassed === true);
};

/** A lone re-run of a failure of unknown kind, in a queue whose re-runs do pass (rerun-passes.ts). */
const flakyQueueRerun = (s: QueueState, run: TestRun): boolean =>
  s.settings.unknownFailuresHoldPlace &&
  !run.bisection &&
  run.prNumbers.length === 1 &&
  run.retry?.cause === 'NO_TEST_RESULTS' &&
  (s.rerunPasses?.rate ?? 0) >= FLAKY_QUEUE_RERUN_PASSES;

/**
 * A lone failure of unknown kind, stepped aside, that no run stacked on its PR could judge, or whose
 * runs stacked on it failed only where their PRs then failed without it too (Entry.failedSuccessors,
 * D342: a break right behind a flake): its own re-run failing too is the only evidence. In a queue
 * whose re-runs do pass, two flakes in a row are then not rare next to a real break nothing else
 * caught, so it gets one re-run more, beside the queue where nobody waits for it (D336).
 */
const unwitnessed = (s: QueueState, run: TestRun): boolean => {
  if (!flakyQueueRerun(s, run)) return false;
  const e = s.entries.get(run.prNumbers[0] as number);
  if (e?.hasSuccessor !== true) return true;
  return e.successorPassed !== true && e.successorFailed === true && (e.failedSuccessors?.length ?? 0) === 0;
};

/**
 * Whether a stepped-aside PR whose re-run failed waits before it is blamed: in a queue whose re-runs
 * pass, while a PR whose run failed on top of it is testing again without it, that verdict decides
 * whether its failure was evidence against this PR (it passes) or its own (it fails: this PR is then
 * unwitnessed and gets one re-run more, D342). Nobody waits for a PR beside the queue.
 */
export const awaitsExplanation = (s: QueueState, e: Entry, run: TestRun): boolean => {
  if (!flakyQueueRerun(s, run) || e.successorPassed === true) return false;
  if ((run.retry?.attempt ?? 0) + 1 > unwitnessedRetries(s.settings.flakeRetries)) return false;
  return (e.failedSuccessors ?? []).some((n) => {
    const successor = s.entries.get(n);
    const again = successor && currentRun(s, successor);
    return again?.status === 'testing' && again.prNumbers.includes(n) && !again.dependentPrs.includes(e.prNumber);
  });
};

/** A PR holding its place on a failure of unknown kind (heldOnUnknown): pending failure, or testing in its re-run. */
export const heldOnUnknownFailure = (s: QueueState, e: Entry): boolean => {
  if (e.state !== 'pending_failure' && e.state !== 'testing') return false;
  const run = currentRun(s, e);
  return run !== undefined && (e.state === 'pending_failure' || run.retry !== undefined) && holdsPlace(s, run) && heldOnUnknown(s, run);
};

/**
 * A PR held on a failure of unknown kind that no run stacked on it has vouched for yet: a suspect
 * (isSuspect), so new runs leave it out, since most such failures are real. Once one passed it is
 * expected to merge and new runs stack it; it still merges only from its own re-run, unless optimistic
 * merging lets that run prove it (optimisticPasses): a PR must pass its own test to merge (D336).
 */
export const heldOnSuspicion = (s: QueueState, e: Entry): boolean => e.successorPassed !== true && heldOnUnknownFailure(s, e);

/** An entry a new run may stack under the PR it tests: in flight, expected to merge, not a suspect. */
export const isStackable = (s: QueueState, e: Entry): boolean => (e.state === 'testing' || e.state === 'tests_passed') && !isSuspect(s, e);

/** Where the entry sits in its run's stack, and the PRs stacked under it. */
export const positionIn = (run: TestRun, prNumber: number): { index: number; deps: number[] } => {
  const stack = stackOf(run);
  const index = stack.indexOf(prNumber);
  return { index, deps: stack.slice(0, Math.max(index, 0)) };
};

/** How many of `deps`, from the bottom of the stack, have merged. */
export const mergedPrefix = (s: QueueState, deps: number[]): number => {
  let m = 0;
  while (m < deps.length && s.entries.get(deps[m] as number)?.state === 'merged') m++;
  return m;
};

export const mayMerge = (s: QueueState): boolean => s.runState !== 'paused';

/**
 * Whether new runs may start: not while paused. While switching modes only the entries already in
 * flight when the switch was asked for go on (and bisections), so the switch completes.
 */
export const mayStart = (s: QueueState, e?: Entry): boolean => {
  if (s.runState === 'paused') return false;
  if (s.runState === 'switching_modes') return e !== undefined && e.flightSeq !== undefined;
  return true;
};

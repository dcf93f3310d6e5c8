import type { Entry } from '../../state';
import type { Action } from '../actions';
import { inPlanOrder, isBesideRetry, isStackable, testingRuns, type Ctx } from '../context';
import { isRunNeeded } from '../runs';
import { wantsWitness } from './successors';

/**
 * What a run testing `members` stacks under them: every entry ahead they depend on (transitively)
 * that is testing or passed and not a suspect, in plan order: the target as it will be when their
 * turn comes (Zuul's speculative parent, peers §2.5). In parallel mode these are only the PRs they
 * share targets with, directly or through others: the run's `dependentPrs`. `startingNow` holds PRs
 * this round starts, which count as testing. Given `witnessing` (the suspects that got a witness
 * this round), a PR that failed alone and still wants a witness is stacked too.
 */
export const stackFor = (
  c: Ctx,
  members: readonly Entry[],
  startingNow: ReadonlySet<number> = new Set(),
  witnessing?: Set<number>,
): Entry[] => {
  const mine = new Set(members.map((m) => m.prNumber));
  const through = (x: Entry): boolean => x.flightSeq !== undefined || startingNow.has(x.prNumber) || mine.has(x.prNumber);
  const witnesses = (x: Entry): boolean => {
    if (!witnessing || witnessing.has(x.prNumber) || !wantsWitness(c, x)) return false;
    witnessing.add(x.prNumber);
    return true;
  };
  const deps = new Map<number, Entry>();
  for (const m of members)
    for (const x of c.graph.closureAhead(m, through))
      if (!mine.has(x.prNumber) && !deps.has(x.prNumber) && (startingNow.has(x.prNumber) || isStackable(c.s, x) || witnesses(x)))
        deps.set(x.prNumber, x);
  return inPlanOrder(c, deps.values());
};

export const startRunAction = (c: Ctx, members: readonly Entry[], deps: readonly Entry[], bisection = false): Action => {
  const target = c.facts.target as { sha: string; tree: string };
  const first = members[0] as Entry;
  return {
    kind: 'startRun',
    prNumber: first.prNumber,
    prNumbers: members.map((m) => m.prNumber),
    stack: [...deps, ...members].map((x) => ({ number: x.prNumber, headSha: x.headSha, title: x.title })),
    dependentPrs: deps.map((x) => x.prNumber),
    baseSha: target.sha,
    baseTree: target.tree,
    ...(bisection ? { bisection: true } : {}),
  };
};

/**
 * Runs in flight that count against `concurrency` (normal) or `bisectionConcurrency` (bisection). Re-runs
 * beside the queue take `flakeRetryConcurrency` first; only those past it take a slot of the queue's.
 */
export const busyRuns = (c: Ctx, bisection: boolean): number => {
  const runs = testingRuns(c.s).filter((r) => r.bisection === bisection && isRunNeeded(c.s, r));
  if (bisection) return runs.length;
  const beside = runs.filter((r) => isBesideRetry(c.s, r)).length;
  return runs.length - Math.min(beside, c.s.settings.flakeRetryConcurrency);
};

/** Whether a re-run of a failed run that stands beside the queue could start now without taking a slot of the queue's. */
export const besideSlotFree = (c: Ctx): boolean =>
  testingRuns(c.s).filter((r) => isRunNeeded(c.s, r) && isBesideRetry(c.s, r)).length < c.s.settings.flakeRetryConcurrency;

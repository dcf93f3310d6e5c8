import type { Entry, TestRun } from '../../state';
import { mayMerge, mergedPrefix, positionIn, type Ctx, type Phase } from '../context';
import { afterStep, beforeStep, currentRun } from '../runs';

export interface Mergeable {
  e: Entry;
  run: TestRun;
  index: number;
  before: { sha: string; tree: string };
  after: { sha: string; tree: string };
}

/**
 * Passed entries whose turn has come, in plan order: nothing they depend on is left ahead of them
 * and everything stacked under them in their run has merged. In single mode that is the head of the
 * queue only, so PRs land in queue order; in parallel mode the head of every lane.
 */
export const mergeable = (c: Ctx): Mergeable[] => {
  const out: Mergeable[] = [];
  for (const e of c.chain) {
    if (e.state !== 'tests_passed' || c.graph.hasAhead(e)) continue;
    const run = currentRun(c.s, e);
    if (!run) continue;
    const { index, deps } = positionIn(run, e.prNumber);
    if (index < 0 || mergedPrefix(c.s, deps) < deps.length) continue;
    const before = beforeStep(run, index);
    const after = afterStep(run, index);
    if (before && after) out.push({ e, run, index, before, after });
  }
  return out;
};

/**
 * One merge per round: the next one is planned on a state that holds this one. Single mode needs the
 * target to hold the tree the run had before this PR. Parallel mode accepts a target that moved by
 * the queue's own merges of other lanes (the restart phase already replaced any run a foreign push
 * made stale); the engine then replays the PR's commits onto it.
 */
export const merges: Phase = (c) => {
  const target = c.facts.target;
  if (!mayMerge(c.s) || !target) return [];
  for (const m of mergeable(c)) {
    if (!c.graph.parallel && target.tree !== m.before.tree) continue;
    if (c.graph.parallel && !c.ownHeads().has(m.run.baseSha)) continue;
    const { e, run, index, before, after } = m;
    if (after.tree === before.tree)
      return [{ kind: 'completeMerge', prNumber: e.prNumber, mergeSha: target.sha, testRunId: run.testRunId, reason: 'MERGE_GRAPH_MERGE' }];
    return [{ kind: 'merge', prNumber: e.prNumber, testRunId: run.testRunId, index, before, after, onto: target.sha }];
  }
  return [];
};

export const directMerge: Phase = (c) => {
  const dm = c.facts.directMerge;
  const first = c.order[0];
  const target = c.facts.target;
  if (!mayMerge(c.s) || c.s.settings.directMergeMode !== 'always' || c.chain.length > 0 || !dm || !target) return [];
  if (first?.state !== 'pending' || first.prNumber !== dm.prNumber || first.headSha !== dm.headSha || !dm.upToDate) return [];
  return [{ kind: 'directMerge', prNumber: first.prNumber, headSha: first.headSha, baseSha: target.sha }];
};

import { readinessOf, sameReadiness } from '../../readiness';
import { activeEntries, notCountedKey, targetsFor } from '../../state';
import { gatingReports, reporterPolicy } from '../../status-reporters';
import type { Action } from '../actions';
import { record, testingRuns, type Phase } from '../context';
import { hostCancelReason } from '../host-change';
import { directMergeFactsOf, mergeable } from './merges';

const TERMINAL_STATUS = new Set(['success', 'failure', 'error']);

/**
 * A crash between moving the target and recording the merge leaves the target holding the PR:
 * record it. Recognised by tree, so it covers fast-forwards and copies; a parallel-mode merge that
 * was replayed onto other lanes' merges is not recognisable this way and heals by a retest instead
 * (docs/engine.md, crash safety).
 */
export const recogniseMerges: Phase = (c) => {
  const target = c.facts.target;
  if (!target) return [];
  for (const m of mergeable(c)) {
    if (m.after.tree !== m.before.tree && target.tree === m.after.tree)
      return [
        { kind: 'completeMerge', prNumber: m.e.prNumber, mergeSha: target.sha, testRunId: m.run.testRunId, reason: 'MERGE_GRAPH_MERGE' },
      ];
  }
  const direct = directMergeFactsOf(c);
  if (direct && target.tree === direct.dm.headTree)
    return [{ kind: 'completeMerge', prNumber: direct.e.prNumber, mergeSha: target.sha, reason: 'MERGE_GRAPH_DIRECT_MERGE' }];
  return [];
};

/** Pushes, closes and retargets cancel; a waiting PR the host now calls mergeable is admitted. */
export const hostChanges: Phase = (c) => {
  const out: Action[] = [];
  // Only PRs the host told about can change; with none, nothing is walked.
  if (c.facts.pulls.size === 0) return out;
  for (const e of activeEntries(c.s)) {
    const pr = c.facts.pulls.get(e.prNumber);
    if (!pr || pr.state === 'merged') continue;
    const cancel = hostCancelReason(c.s.branch, e, pr);
    if (cancel) out.push(record({ type: 'CancelForHostChange', prNumber: e.prNumber, reason: cancel }));
    else if (pr.mergeability !== undefined && (e.state === 'not_ready' || (e.state === 'pending' && e.flightSeq === undefined))) {
      const readiness = readinessOf({
        mode: c.s.settings.mode,
        queueBranch: c.s.branch,
        baseBranch: pr.baseBranch,
        mergeability: pr.mergeability,
        hasImpactedTargets: targetsFor(c.s, e.prNumber, e.headSha) !== undefined,
      });
      if (!sameReadiness(readiness, e.readiness))
        out.push(
          record({
            type: 'RefreshReadiness',
            prNumber: e.prNumber,
            headSha: pr.headSha,
            baseBranch: pr.baseBranch,
            mergeability: pr.mergeability,
          }),
        );
    }
  }
  return out;
};

/**
 * New reports on running runs' commits, sorted by who may give them (gatingReports): a report that
 * counts is recorded as the run's status; one that does not is kept for the explanation, and decides nothing.
 */
export const statusReports: Phase = (c) =>
  testingRuns(c.s).flatMap((run) => {
    const { counted, notCounted } = gatingReports(reporterPolicy(c.s, run.localChecks), c.facts.statuses.get(run.testBranchSha) ?? []);
    const reported = counted
      .filter((st) => {
        const seen = run.statuses[st.context];
        if (!seen) return true;
        if (TERMINAL_STATUS.has(seen.state) && st.state === 'pending') return false;
        return seen.state !== st.state || seen.url !== st.url;
      })
      .map((st) =>
        record({
          type: 'ReportTestStatus',
          testRunId: run.testRunId,
          context: st.context,
          state: st.state,
          ...(st.url !== undefined ? { url: st.url } : {}),
          ...(st.infrastructureError !== undefined && st.state === 'error'
            ? { infrastructureError: { code: st.infrastructureError.code, message: st.infrastructureError.message } }
            : {}),
          ...(st.reporter !== undefined ? { reporter: st.reporter } : {}),
        }),
      );
    const ignored = notCounted
      .filter((st) => {
        const seen = run.notCounted?.[notCountedKey(st.context, st.reporter)];
        return !seen || seen.state !== st.state || seen.url !== st.url || seen.why !== st.why;
      })
      .map((st) =>
        record({
          type: 'ReportStatusNotCounted',
          testRunId: run.testRunId,
          context: st.context,
          state: st.state,
          ...(st.url !== undefined ? { url: st.url } : {}),
          ...(st.reporter !== undefined ? { reporter: st.reporter } : {}),
          why: st.why,
        }),
      );
    return [...reported, ...ignored];
  });

/** Test branches of runs the state no longer holds (ended and unneeded, or never recorded after a crash). */
export const sweepBranches: Phase = (c) => {
  // A re-run tests on its failed run's branch (docs/engine.md, Flakes): the branch lives while either does.
  const inUse = new Set([...c.s.runs.values()].map((r) => r.testBranch));
  return c.facts.testBranches
    .filter((b) => !c.s.runs.has(b.testRunId) && !inUse.has(b.branch))
    .map((b): Action => ({ kind: 'deleteBranch', branch: b.branch }));
};

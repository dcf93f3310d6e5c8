import { activeEntries, byQueueOrder, entryOf, type QueueState, type TestRun } from '../state';
import { explainPr } from './explain';
import type { ExplainRun, Explanation } from './types';

/** A write-side run as the explanation reads it. */
export const explainRunOfTestRun = (r: TestRun): ExplainRun => ({
  testRunId: r.testRunId,
  status: r.status,
  testBranch: r.testBranch,
  requiredStatuses: r.requiredStatuses,
  statuses: Object.entries(r.statuses).map(([context, s]) => ({ context, state: s.state, ...(s.url ? { url: s.url } : {}) })),
  failedContexts: r.failedContexts,
  ...(r.configNotUsed ? { configNotUsed: r.configNotUsed } : {}),
  ...(r.notCounted ? { notCounted: Object.values(r.notCounted) } : {}),
});

/**
 * Explains a PR from the write side's state (used when the read models lag behind a write). The state
 * drops runs no active entry needs, so a finished PR's last run may be unknown here.
 */
export const explainFromState = (s: QueueState, prNumber: number): Explanation | undefined => {
  const entry = entryOf(s, prNumber);
  if (!entry) return undefined;
  const active = activeEntries(s).sort(byQueueOrder);
  const index = active.findIndex((e) => e.prNumber === prNumber);
  const ahead = index < 0 ? [] : active.slice(0, index);
  const run = entry.lastTestRunId === undefined ? undefined : s.runs.get(entry.lastTestRunId);
  return explainPr({
    pr: entry,
    queue: { state: s.runState, settings: s.settings },
    ahead: { count: ahead.length, first: ahead.slice(0, 5).map((e) => e.prNumber) },
    ...(run ? { run: explainRunOfTestRun(run) } : {}),
  });
};

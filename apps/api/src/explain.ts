import { explainPr, explainQueue, type ExplainRun, type Explanation } from '@railyard/domain';
import type { PrView, QueueView, ReadModelStore, TestRunView } from '@railyard/readmodels';
import { entryFactsOf } from '@railyard/readmodels';

/** A read-model run as the domain's explanation reads it. */
export const explainRunOfView = (r: TestRunView): ExplainRun => ({
  testRunId: r.testRunId,
  status: r.status === 'in_progress' ? 'testing' : r.outcome?.kind === 'timed_out' ? 'timed_out' : r.status,
  testBranch: r.testBranch,
  requiredStatuses: r.requiredStatuses,
  statuses: r.statuses.map((s) => ({ context: s.context, state: s.state, ...(s.url ? { url: s.url } : {}) })),
  failedContexts: r.outcome?.failedContexts ?? [],
});

const runOf = async (readModels: ReadModelStore, p: PrView): Promise<ExplainRun | undefined> => {
  if (p.lastTestRunId === undefined) return undefined;
  const run = await readModels.getTestRun(p.queueId, p.lastTestRunId);
  return run ? explainRunOfView(run) : undefined;
};

/** One PR explained from the read models: its queue's state, the active PRs ahead of it and its last run. */
export const explainView = async (readModels: ReadModelStore, p: PrView): Promise<Explanation> => {
  const [queue, active, run] = await Promise.all([
    readModels.getQueue(p.queueId),
    p.isCurrentlySubmittedToQueue ? readModels.listActivePrs(p.queueId) : Promise.resolve([]),
    runOf(readModels, p),
  ]);
  const index = active.findIndex((a) => a.prNumber === p.prNumber);
  const ahead = index < 0 ? [] : active.slice(0, index);
  return explainPr({
    pr: entryFactsOf(p),
    queue: { state: queue?.state ?? 'running' },
    ahead: { count: ahead.length, first: ahead.slice(0, 5).map((a) => a.prNumber) },
    ...(run ? { run } : {}),
  });
};

/** Every PR of a queue (given in queue order) explained in one pass, their runs read at once. */
export const explainViews = async (readModels: ReadModelStore, queue: QueueView, prs: PrView[]): Promise<Explanation[]> => {
  // Only PRs that were tested have a run to read: a long queue of waiting PRs costs no read per PR.
  const tested = prs.filter((p) => p.lastTestRunId !== undefined);
  const runs = await Promise.all(tested.map((p) => runOf(readModels, p)));
  const byPr = new Map(tested.map((p, i) => [p.prNumber, runs[i]]));
  return explainQueue(
    { state: queue.state },
    prs.map((p) => entryFactsOf(p)),
    (pr) => byPr.get(pr.prNumber),
  );
};

import { DEFAULT_SETTINGS, explainPr, explainQueue, type ExplainRun, type Explanation } from '@railyard/domain';
import type { TestRunView } from '../testruns/projection/docs';
import type { PrView, QueueView, ReadModelStore } from './port';
import { entryFactsOf } from './projection/pr-view';
import { getQueueResponse } from './views';

/**
 * The domain's explanations (docs/api.md, "Explanations") applied to read-model views: used by the API
 * when it reads views one by one, and by the Redis projection when it writes the queue's answer ahead.
 */

/** A read-model run as the domain's explanation reads it. */
export const explainRunOfView = (r: TestRunView): ExplainRun => ({
  testRunId: r.testRunId,
  status: r.status === 'in_progress' ? 'testing' : r.outcome?.kind === 'timed_out' ? 'timed_out' : r.status,
  testBranch: r.testBranch,
  requiredStatuses: r.requiredStatuses,
  statuses: r.statuses.map((s) => ({ context: s.context, state: s.state, ...(s.url ? { url: s.url } : {}) })),
  failedContexts: r.outcome?.failedContexts ?? [],
  ...(r.configNotUsed ? { configNotUsed: r.configNotUsed } : {}),
  ...(r.notCounted
    ? { notCounted: r.notCounted.map(({ context, state, reporter, why }) => ({ context, state, why, ...(reporter ? { reporter } : {}) })) }
    : {}),
});

/** Every PR of a queue (given in queue order) explained in one pass; `runOf` gives a tested PR's last run. */
export const explainQueueViews = (
  queue: QueueView,
  prs: readonly PrView[],
  runOf: (p: PrView) => TestRunView | null | undefined,
): Explanation[] => {
  const byPr = new Map(prs.map((p) => [p.prNumber, p]));
  return explainQueue(
    { state: queue.state, settings: queue.settings },
    prs.map((p) => entryFactsOf(p)),
    (facts) => {
      const p = byPr.get(facts.prNumber);
      const run = p ? runOf(p) : null;
      return run ? explainRunOfView(run) : undefined;
    },
  );
};

/** The getQueue answer as the API sends it: the same bytes `res.json` writes for getQueueResponse. */
export const queueAnswerJson = (queue: QueueView, prs: readonly PrView[], explanations: Explanation[]): string =>
  JSON.stringify(getQueueResponse(queue, [...prs], explanations));

/** A PR's last run as its explanation reads it, or undefined when it was never tested. */
export const explainRunOf = async (readModels: Pick<ReadModelStore, 'getTestRun'>, p: PrView): Promise<ExplainRun | undefined> => {
  if (p.lastTestRunId === undefined) return undefined;
  const run = await readModels.getTestRun(p.queueId, p.lastTestRunId);
  return run ? explainRunOfView(run) : undefined;
};

/** The active PRs ahead of one in queue order, as an explanation names them: how many, and the first few. */
export interface Ahead {
  count: number;
  first: number[];
}

export const AHEAD_NAMED = 5;

/** One PR explained from its queue's view, the PRs ahead of it and its last run. */
export const explainViewWith = (queue: QueueView | null, p: PrView, ahead: Ahead, run: ExplainRun | undefined): Explanation =>
  explainPr({
    pr: entryFactsOf(p),
    queue: { state: queue?.state ?? 'running', settings: queue?.settings ?? DEFAULT_SETTINGS },
    ahead,
    ...(run ? { run } : {}),
  });

/** One PR explained from the read models: its queue's state, the active PRs ahead of it and its last run. */
export const explainView = async (
  readModels: Pick<ReadModelStore, 'getQueue' | 'listActivePrs' | 'getTestRun'>,
  p: PrView,
): Promise<Explanation> => {
  const [queue, active, run] = await Promise.all([
    readModels.getQueue(p.queueId),
    p.isCurrentlySubmittedToQueue ? readModels.listActivePrs(p.queueId) : Promise.resolve([]),
    explainRunOf(readModels, p),
  ]);
  const index = active.findIndex((a) => a.prNumber === p.prNumber);
  const ahead = index < 0 ? [] : active.slice(0, index);
  return explainViewWith(queue, p, { count: ahead.length, first: ahead.slice(0, AHEAD_NAMED).map((a) => a.prNumber) }, run);
};

/** Every PR of a queue (given in queue order) explained in one pass, their runs read at once. */
export const explainViews = async (
  readModels: Pick<ReadModelStore, 'getTestRun'>,
  queue: QueueView,
  prs: PrView[],
): Promise<Explanation[]> => {
  // Only PRs that were tested have a run to read: a long queue of waiting PRs costs no read per PR.
  const tested = prs.filter((p) => p.lastTestRunId !== undefined);
  const runs = await Promise.all(tested.map((p) => explainRunOf(readModels, p)));
  const byPr = new Map(tested.map((p, i) => [p.prNumber, runs[i]]));
  return explainQueue(
    { state: queue.state, settings: queue.settings },
    prs.map((p) => entryFactsOf(p)),
    (pr) => byPr.get(pr.prNumber),
  );
};

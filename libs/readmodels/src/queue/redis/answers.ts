import type Redis from 'ioredis';
import type { Explanation } from '@railyard/domain';
import { explainQueueViews, queueAnswerJson } from '../explain';
import { prResponse } from '../views';
import type { PrView } from '../port';
import { prKeyOf, type BatchChanges, type DocSet } from '../projection/batch';
import type { PrDoc, QueueDoc } from '../projection/docs';
import { byQueueOrder, isActive } from '../projection/order';
import type { TestRunDoc, TestRunView } from '../../testruns/projection/docs';
import { testRunKeyOf, type TestRunChanges, type TestRunDocSet } from '../../testruns/projection/project';
import type { ScriptCall } from '../../redis/script';
import type { RedisKeys } from '../../redis/keys';

const parse = <T>(json: string | null | undefined): T | null => (json ? (JSON.parse(json) as T) : null);

/** Queues whose getQueue answer a batch changes: its queue, any of its PRs, or any of its runs changed. */
const queuesAffected = (changes: BatchChanges, runChanges: TestRunChanges): string[] => {
  const queueOfKey = (key: string) => key.slice(0, key.indexOf('\u0000'));
  const ids = new Set([...changes.queueIds, ...changes.regenerated]);
  for (const key of changes.prKeys) ids.add(queueOfKey(key));
  for (const key of runChanges.runs) ids.add(queueOfKey(key));
  return [...ids];
};

/**
 * Adds to the batch's APPLY_BATCH call, for every queue the batch touches, the getQueue answer as the
 * API sends it and each active PR's getSubmittedPullRequest answer, so both land atomically with the documents and the
 * checkpoint and a read costs one round trip and no JSON work (docs/benchmarks.md, "API results").
 * Reads what the batch did not load (the queue's other active PRs and their last runs) in up to three
 * round trips; the checkpoint's compare-and-set makes those reads part of the same snapshot.
 */
export const appendQueueAnswers = async (
  redis: Redis,
  call: ScriptCall,
  k: RedisKeys,
  docs: DocSet,
  changes: BatchChanges,
  runDocs: TestRunDocSet,
  runChanges: TestRunChanges,
): Promise<void> => {
  const queueIds = queuesAffected(changes, runChanges);
  if (queueIds.length === 0) return;

  // The active sets as they stood before the batch, and the queue documents the batch did not load.
  const missingQueues = queueIds.filter((id) => !docs.queues.has(id));
  const pipeline = redis.pipeline();
  for (const id of queueIds) pipeline.zrange(k.active(id), 0, '-1');
  if (missingQueues.length > 0) pipeline.mget(...missingQueues.map((id) => k.queue(id)));
  const replies = (await pipeline.exec()) ?? [];
  for (const [err] of replies) if (err) throw err;
  const queues = new Map<string, QueueDoc | null>(docs.queues);
  if (missingQueues.length > 0) {
    const values = (replies[queueIds.length]?.[1] ?? []) as (string | null)[];
    missingQueues.forEach((id, i) => queues.set(id, parse<QueueDoc>(values[i])));
  }

  // The active set after the batch: as before, then the batch's own PR changes (batchWrite's rule).
  const members = new Map<string, Set<number>>();
  queueIds.forEach((id, i) => {
    const before = changes.regenerated.has(id) ? [] : ((replies[i]?.[1] ?? []) as string[]);
    members.set(id, new Set(before.map(Number)));
  });
  for (const key of changes.prKeys) {
    const doc = docs.prs.get(key);
    if (!doc) continue;
    const { queueId, prNumber } = doc.view;
    const set = members.get(queueId);
    if (!set) continue;
    if (isActive(queues.get(queueId) ?? null, doc)) set.add(prNumber);
    else set.delete(prNumber);
  }

  const prs = new Map<string, PrDoc | null>(docs.prs);
  const missingPrs = queueIds.flatMap((id) =>
    [...(members.get(id) ?? [])].filter((n) => !prs.has(prKeyOf(id, n))).map((n) => ({ queueId: id, prNumber: n })),
  );
  if (missingPrs.length > 0) {
    const values = await redis.mget(...missingPrs.map((p) => k.pr(p.queueId, p.prNumber)));
    missingPrs.forEach((p, i) => prs.set(prKeyOf(p.queueId, p.prNumber), parse<PrDoc>(values[i])));
  }

  const activeOf = new Map<string, PrView[]>();
  for (const id of queueIds) {
    const queue = queues.get(id) ?? null;
    const views = [...(members.get(id) ?? [])]
      .map((n) => prs.get(prKeyOf(id, n)) ?? null)
      .filter((doc): doc is PrDoc => isActive(queue, doc))
      .map((doc) => doc.view)
      .sort(byQueueOrder);
    activeOf.set(id, views);
  }

  const runs = new Map<string, TestRunView | null>();
  for (const [key, doc] of runDocs.runs) runs.set(key, doc?.view ?? null);
  const missingRuns = [...activeOf.values()]
    .flat()
    .flatMap((p) => (p.lastTestRunId !== undefined && !runs.has(testRunKeyOf(p.queueId, p.lastTestRunId)) ? [p] : []));
  if (missingRuns.length > 0) {
    const values = await redis.mget(...missingRuns.map((p) => k.testRun(p.queueId, p.lastTestRunId as string)));
    missingRuns.forEach((p, i) => runs.set(testRunKeyOf(p.queueId, p.lastTestRunId as string), parse<TestRunDoc>(values[i])?.view ?? null));
  }

  const op = (...args: string[]) => call.args.push(...args);
  const ref = (key: string): string => {
    call.keys.push(key);
    return String(call.keys.length);
  };
  for (const id of queueIds) {
    const view = queues.get(id)?.view;
    const prAnswersKey = ref(k.prAnswers(id));
    op('D', prAnswersKey);
    // An API of the previous version reading its own key then finds nothing and builds the answer itself.
    for (const stale of k.staleQueueAnswers(id)) op('D', ref(stale));
    if (!view) {
      op('D', ref(k.queueAnswer(id)));
      continue;
    }
    const active = activeOf.get(id) ?? [];
    const explanations = explainQueueViews(view, active, (p) =>
      p.lastTestRunId === undefined ? null : runs.get(testRunKeyOf(p.queueId, p.lastTestRunId)),
    );
    op('S', ref(k.queueAnswer(id)), queueAnswerJson(view, active, explanations));
    active.forEach((p, i) => op('H', prAnswersKey, String(p.prNumber), JSON.stringify(prResponse(p, explanations[i] as Explanation))));
  }
};

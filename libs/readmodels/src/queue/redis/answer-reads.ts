import type Redis from 'ioredis';
import { AHEAD_NAMED, explainQueueViews, explainRunOf, explainViewWith, queueAnswerJson } from '../explain';
import { prResponse } from '../views';
import type { PrView, ReadModelStore } from '../port';
import { isCurrent, type PrDoc, type QueueDoc } from '../projection/docs';
import { byQueueOrder, isActive } from '../projection/order';
import type { TestRunDoc, TestRunView } from '../../testruns/projection/docs';
import type { RedisKeys } from '../../redis/keys';
import { READ_PR_PLACE, STORE_IF_UNCHANGED } from '../../redis/scripts';

const parse = <T>(json: string | null | undefined): T | null => (json ? (JSON.parse(json) as T) : null);

// A batch landing while a read builds the answer moves the version; the read then builds again.
const BUILD_ATTEMPTS = 3;

/** The queue's version, document and active set as they stood together (one MULTI). */
const readQueueTogether = async (redis: Redis, k: RedisKeys, queueId: string) => {
  const replies = (await redis.multi().get(k.answerVersion(queueId)).get(k.queue(queueId)).zrange(k.active(queueId), 0, '-1').exec()) ?? [];
  for (const [err] of replies) if (err) throw err;
  return {
    version: (replies[0]?.[1] as string | null) ?? '',
    queue: parse<QueueDoc>(replies[1]?.[1] as string | null),
    members: (replies[2]?.[1] ?? []) as string[],
  };
};

/** The getQueue answer built from the documents, as the projection wrote it ahead before D253. */
const buildQueueAnswer = async (redis: Redis, k: RedisKeys, queueId: string) => {
  const { version, queue, members } = await readQueueTogether(redis, k, queueId);
  const view = queue?.view;
  if (!view) return { version, json: null };
  const docs = members.length > 0 ? await redis.mget(...members.map((m) => k.pr(queueId, Number(m)))) : [];
  const active: PrView[] = docs
    .map((json) => parse<PrDoc>(json))
    .filter((doc): doc is PrDoc => isActive(queue, doc))
    .map((doc) => doc.view)
    .sort(byQueueOrder);
  const tested = active.filter((p) => p.lastTestRunId !== undefined);
  const runJson = tested.length > 0 ? await redis.mget(...tested.map((p) => k.testRun(queueId, p.lastTestRunId as string))) : [];
  const runs = new Map<number, TestRunView | null>(tested.map((p, i) => [p.prNumber, parse<TestRunDoc>(runJson[i])?.view ?? null]));
  const explanations = explainQueueViews(view, active, (p) => runs.get(p.prNumber));
  return { version, json: queueAnswerJson(view, active, explanations) };
};

/**
 * The stored getQueue answer, or, when a batch has changed the queue since it was stored, the answer
 * built now and stored for the reads after it. It is stored only if the queue's answer version has not
 * moved since the read began, so a build that mixes two batches is never kept (docs/decisions.md D253).
 * With `stored` false every read builds the answer and keeps nothing: the simple design (D332).
 */
export const readQueueAnswer = async (redis: Redis, k: RedisKeys, queueId: string, stored = true): Promise<string | null> => {
  if (!stored) return (await buildQueueAnswer(redis, k, queueId)).json;
  const kept = await redis.get(k.queueAnswer(queueId));
  if (kept !== null) return kept;
  let built: string | null = null;
  for (let attempt = 1; attempt <= BUILD_ATTEMPTS; attempt++) {
    const { version, json } = await buildQueueAnswer(redis, k, queueId);
    if (json === null) return null;
    built = json;
    if ((await STORE_IF_UNCHANGED.run(redis, [k.answerVersion(queueId), k.queueAnswer(queueId)], [version, json])) === 1) return json;
  }
  // The queue kept changing under every attempt: answer with the last build, as reads of views do.
  return built;
};

/**
 * One PR's getSubmittedPullRequest answer: the one stored since the queue's last batch, or built now
 * and stored. The build reads its queue, its document and its place in the active set in one atomic
 * script, so it costs the same at any queue length (the PRs ahead are a ZRANK and the first few a
 * ZRANGE) and equals explainView's.
 */
export const readPrAnswer = async (
  redis: Redis,
  k: RedisKeys,
  readModels: Pick<ReadModelStore, 'getTestRun'>,
  queueId: string,
  prNumber: number,
  stored = true,
): Promise<string | null> => {
  const kept = stored ? await redis.hget(k.prAnswers(queueId), String(prNumber)) : null;
  if (kept !== null) return kept;
  const reply = (await READ_PR_PLACE.run(
    redis,
    [k.queue(queueId), k.pr(queueId, prNumber), k.active(queueId), k.answerVersion(queueId)],
    [String(prNumber), String(AHEAD_NAMED)],
  )) as [string | null, string | null, number | null, string[], string];
  const [queueJson, prJson, rank, first, version] = reply;
  const queue = parse<QueueDoc>(queueJson);
  const pr = parse<PrDoc>(prJson);
  if (!isCurrent(queue, pr)) return null;
  const view = pr.view;
  const ahead =
    view.isCurrentlySubmittedToQueue && rank !== null && rank !== undefined
      ? { count: Number(rank), first: (first ?? []).map(Number) }
      : { count: 0, first: [] };
  const explanation = explainViewWith(queue?.view ?? null, view, ahead, await explainRunOf(readModels, view));
  const json = JSON.stringify(prResponse(view, explanation));
  // Kept for the next reads unless a batch moved the version meanwhile (its run may then be newer).
  if (stored) await STORE_IF_UNCHANGED.run(redis, [k.answerVersion(queueId), k.prAnswers(queueId)], [version, String(prNumber), json]);
  return json;
};

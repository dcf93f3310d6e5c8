/**
 * Every key of a namespace shares one hash tag, so a batch's writes and its checkpoint land in one
 * cluster slot and can go through one script. Queue ids are URI-encoded by the domain, so they hold
 * no `:`, `{` or `}` and cannot collide with the separators.
 */
export interface RedisKeys {
  namespace: string;
  /** STRING: position of the last applied event, zero-padded to 20 digits (or the reset marker). */
  checkpoint: string;
  /** STRING: JSON QueueDoc. */
  queue(queueId: string): string;
  /**
   * STRING: the getQueue answer as the API sends it. Deleted by every batch that touches the queue and
   * written by the first read after it, if the queue's answerVersion has not moved meanwhile (D253).
   * The key names the answer's format, so an answer an older version wrote is never sent as this one.
   */
  queueAnswer(queueId: string): string;
  /** STRING: checkpoint of the last batch that changed the queue's answers; a read stores an answer only under it. */
  answerVersion(queueId: string): string;
  /** The keys older versions wrote the getQueue answer under, deleted when the current one is written. */
  staleQueueAnswers(queueId: string): string[];
  /** HASH: field prNumber, value the PR's getSubmittedPullRequest answer stored by a read; deleted by every batch of the queue. */
  prAnswers(queueId: string): string;
  /** ZSET: member prNumber, score queueOrderScore; the queue's non-terminal PRs of the current generation. */
  active(queueId: string): string;
  /** ZSET: member and score prNumber; every PR with a document in the queue's current generation, for listPrs. */
  prNumbers(queueId: string): string;
  /** STRING: JSON PrDoc. */
  pr(queueId: string, prNumber: number): string;
  /** STRING: JSON TestRunDoc. */
  testRun(queueId: string, testRunId: string): string;
  /** STRING: JSON PrTargetsDoc, the PR's impacted-target uploads that runs record when they start. */
  testRunTargets(queueId: string, prNumber: number): string;
  /** ZSET: member queueId (score 0) of every queue whose current view carries a host problem. */
  hostProblems: string;
  /** STRING: owner id of whoever holds the named lease, with a TTL. */
  lease(name: string): string;
  /** STRING and HASH (field stream id): the standalone engines' snapshot, head and queue states (D292); not a model key. */
  engineHead: string;
  engineStreams: string;
  /** SCAN patterns covering every model key (not the checkpoint, not the leases). */
  modelPatterns: string[];
}

/**
 * The getQueue answer's format: raised whenever the answer's fields change (2: Trunk's fields on each
 * enqueued PR; 3: the queue's batchSize and failureRate), so a projection of the previous version is rebuilt per request, not sent.
 */
export const QUEUE_ANSWER_FORMAT = 3;

const NAMESPACE = /^[A-Za-z0-9_.-]{1,64}$/;

export const redisKeys = (namespace: string): RedisKeys => {
  if (!NAMESPACE.test(namespace)) throw new Error(`read-model namespace must match ${String(NAMESPACE)}: ${namespace}`);
  const base = `ry:{${namespace}}:`;
  return {
    namespace,
    checkpoint: `${base}checkpoint`,
    queue: (queueId) => `${base}q:${queueId}`,
    active: (queueId) => `${base}q:${queueId}:active`,
    prNumbers: (queueId) => `${base}q:${queueId}:prs`,
    queueAnswer: (queueId) => `${base}q:${queueId}:answer:${QUEUE_ANSWER_FORMAT}`,
    answerVersion: (queueId) => `${base}q:${queueId}:answerv`,
    staleQueueAnswers: (queueId) => [`${base}q:${queueId}:answer`, `${base}q:${queueId}:answer:2`],
    prAnswers: (queueId) => `${base}q:${queueId}:pranswers`,
    pr: (queueId, prNumber) => `${base}pr:${queueId}:${prNumber}`,
    testRun: (queueId, testRunId) => `${base}tr:${queueId}:${testRunId}`,
    testRunTargets: (queueId, prNumber) => `${base}tt:${queueId}:${prNumber}`,
    hostProblems: `${base}hostproblems`,
    lease: (name) => `${base}lease:${name}`,
    engineHead: `${base}engine:head`,
    engineStreams: `${base}engine:streams`,
    modelPatterns: [`${base}q:*`, `${base}pr:*`, `${base}tr:*`, `${base}tt:*`, `${base}hostproblems`],
  };
};

/** Fixed width so positions compare as strings too, and bigint positions never pass through a double. */
export const encodePosition = (position: bigint): string => position.toString().padStart(20, '0');

import * as readModelTesting from '../../testing';
import { redisBed, redisSpecifics } from '../../testing/redis';
import { redisKeys } from '../../redis/keys';
import { MemoryReadModelStore } from '../memory/store';
import { RedisReadModelStore } from '../redis/store';
import type { ReadModelStore } from '../port';
import { readModelContract } from './queue.contract';
import { freshStoreEach } from '../../testing/fresh-store';

const bed = redisBed('rm-contract');
const keys = redisKeys(bed.namespace);
const { RecordedEventFactory, prSubmitted, prCancelled, queueCreated, testQueueId } = readModelTesting;
const Q = testQueueId();
const AT = '2026-03-01T09:00:00.000Z';

readModelContract('redis', () => new RedisReadModelStore({ redis: bed.url, namespace: bed.namespace }));
// The simple design the stored answers are measured against (D332): the same answers, built on every read.
readModelContract(
  'redis, answers built on every read',
  () => new RedisReadModelStore({ redis: bed.url, namespace: bed.namespace, storedAnswers: false }),
);

redisSpecifics(bed, () => keys.checkpoint, {
  open: (redis) => new RedisReadModelStore({ redis, namespace: bed.namespace }),
  memory: () => new MemoryReadModelStore(),
  // Sixty PRs of two priorities, so the queue order (priority, then submission) is tested under concurrency.
  history: () => {
    const factory = new RecordedEventFactory();
    const events = factory.record(Q, queueCreated(Q, AT));
    for (let n = 1; n <= 60; n++)
      events.push(...factory.record(Q, prSubmitted(n, AT, { priorityValue: n % 2 === 0 ? 10 : 100, priorityName: 'medium' })));
    return events;
  },
  afterReset: () => new RecordedEventFactory().record(Q, queueCreated(Q, AT), prSubmitted(7, AT)),
  seen: async (store: ReadModelStore) => ({
    queue: await store.getQueue(Q),
    active: await store.listActivePrs(Q),
    first: await store.getPr(Q, 1),
  }),
  batches: [5, 9],
});

describe('RedisReadModelStore specifics', () => {
  let store: RedisReadModelStore;

  freshStoreEach(
    () => new RedisReadModelStore({ redis: bed.redis, namespace: bed.namespace }),
    (s) => (store = s),
  );
  afterEach(() => jest.restoreAllMocks());

  it('when a batch is applied, then every key it writes is under the namespace hash tag', async () => {
    const factory = new RecordedEventFactory();
    await store.apply(factory.record(Q, queueCreated(Q, AT), prSubmitted(1, AT), prSubmitted(2, AT), prCancelled(2, AT)));
    expect(await bed.keys()).toEqual(
      [keys.checkpoint, keys.pr(Q, 1), keys.pr(Q, 2), keys.queue(Q), keys.active(Q), keys.prNumbers(Q), keys.answerVersion(Q)].sort(),
    );
    expect(await bed.redis.zrange(keys.active(Q), 0, '-1')).toEqual(['1']);
    expect(await bed.redis.get(keys.checkpoint)).toBe('00000000000000000004');
  });

  it('when a getQueue answer of an earlier format is stored, then it is never read and the next batch deletes it', async () => {
    const factory = new RecordedEventFactory();
    await store.apply(factory.record(Q, queueCreated(Q, AT)));
    const [legacy] = keys.staleQueueAnswers(Q) as [string];
    await bed.redis.del(keys.queueAnswer(Q));
    await bed.redis.set(legacy, JSON.stringify({ enqueuedPullRequests: [{ number: 1 }] }));
    expect(JSON.parse((await store.getQueueAnswer(Q)) ?? 'null')).toMatchObject({ enqueuedPullRequests: [] });
    await store.apply(factory.record(Q, prSubmitted(1, AT)));
    expect(await bed.redis.exists(legacy)).toBe(0);
    expect(JSON.parse((await store.getQueueAnswer(Q)) ?? 'null').enqueuedPullRequests[0]).toMatchObject({ prNumber: 1, number: 1 });
  });

  it('when a batch touches a queue, then it writes no answer ahead: the next read builds and keeps each until the next batch', async () => {
    const factory = new RecordedEventFactory();
    await store.apply(factory.record(Q, queueCreated(Q, AT), prSubmitted(1, AT), prSubmitted(2, AT)));
    await bed.redis.hset(keys.prAnswers(Q), '1', 'an answer stored before the batch');
    await store.apply(factory.record(Q, prSubmitted(3, AT)));
    expect(await bed.redis.exists(keys.queueAnswer(Q), keys.prAnswers(Q))).toBe(0);
    const built = await store.getQueueAnswer(Q);
    expect(JSON.parse(built ?? 'null').enqueuedPullRequests.map((p: { prNumber: number }) => p.prNumber)).toEqual([1, 2, 3]);
    expect(await bed.redis.get(keys.queueAnswer(Q))).toBe(built);
    await store.apply(factory.record(Q, prCancelled(1, AT)));
    expect(await bed.redis.exists(keys.queueAnswer(Q))).toBe(0);
    const pr2 = await store.getPrAnswer(Q, 2);
    expect(await bed.redis.hget(keys.prAnswers(Q), '2')).toBe(pr2);
    await store.apply(factory.record(Q, prCancelled(3, AT)));
    expect(await bed.redis.exists(keys.queueAnswer(Q), keys.prAnswers(Q))).toBe(0);
    expect(JSON.parse((await store.getQueueAnswer(Q)) ?? 'null').enqueuedPullRequests.map((p: { prNumber: number }) => p.prNumber)).toEqual(
      [2],
    );
  });

  it('when stored answers are off, then every read builds the answer from the documents and keeps none', async () => {
    const simple = new RedisReadModelStore({ redis: bed.redis, namespace: bed.namespace, storedAnswers: false });
    const factory = new RecordedEventFactory();
    await simple.apply(factory.record(Q, queueCreated(Q, AT), prSubmitted(1, AT), prSubmitted(2, AT)));
    const built = await simple.getQueueAnswer(Q);
    expect(JSON.parse(built ?? 'null').enqueuedPullRequests.map((p: { prNumber: number }) => p.prNumber)).toEqual([1, 2]);
    expect(JSON.parse((await simple.getPrAnswer(Q, 2)) ?? 'null')).toMatchObject({ prNumber: 2 });
    expect(await bed.redis.exists(keys.queueAnswer(Q), keys.prAnswers(Q))).toBe(0);
    // An answer another replica stored is not what this one reads: it builds its own.
    await bed.redis.set(keys.queueAnswer(Q), 'an answer another replica stored');
    expect(await simple.getQueueAnswer(Q)).toBe(built);
  });

  it('when a batch lands while a read builds the getQueue answer, then the mixed build is not kept and the answer is rebuilt', async () => {
    const factory = new RecordedEventFactory();
    await store.apply(factory.record(Q, queueCreated(Q, AT), prSubmitted(1, AT), prSubmitted(2, AT)));
    const mget = bed.redis.mget.bind(bed.redis);
    // The build reads the active set (1, 2), then the documents: PR 3 is submitted in between, so
    // that build would leave it out.
    jest.spyOn(bed.redis, 'mget').mockImplementationOnce((async (...args: Parameters<typeof mget>) => {
      await store.apply(factory.record(Q, prSubmitted(3, AT)));
      return mget(...args);
    }) as unknown as typeof bed.redis.mget);
    const answer = await store.getQueueAnswer(Q);
    expect(JSON.parse(answer ?? 'null').enqueuedPullRequests.map((p: { prNumber: number }) => p.prNumber)).toEqual([1, 2, 3]);
    expect(await bed.redis.get(keys.queueAnswer(Q))).toBe(answer);
    expect(await bed.redis.get(keys.answerVersion(Q))).toBe(await bed.redis.get(keys.checkpoint));
  });

  it('when a batch lands while a read builds a PR answer, then that answer is not kept and the next read sees the batch', async () => {
    const factory = new RecordedEventFactory();
    await store.apply(factory.record(Q, queueCreated(Q, AT), prSubmitted(1, AT), prSubmitted(2, AT)));
    const evalsha = bed.redis.evalsha.bind(bed.redis);
    // After the build's atomic read, PR 3 is submitted ahead of PR 2 (a higher priority).
    jest.spyOn(bed.redis, 'evalsha').mockImplementationOnce((async (...args: Parameters<typeof evalsha>) => {
      const read = await evalsha(...args);
      await store.apply(factory.record(Q, prSubmitted(3, AT, { priorityValue: 10, priorityName: 'high' })));
      return read;
    }) as unknown as typeof bed.redis.evalsha);
    const built = JSON.parse((await store.getPrAnswer(Q, 2)) ?? 'null');
    expect(built.waitingOn[0].prNumbers).toEqual([1]);
    expect(await bed.redis.hexists(keys.prAnswers(Q), '2')).toBe(0);
    expect(JSON.parse((await store.getPrAnswer(Q, 2)) ?? 'null').waitingOn[0].prNumbers).toEqual([3, 1]);
  });
});

import Redis from 'ioredis';
import { redisKeys } from '../redis/keys';
import { RedisReadModelStore } from '../queue/redis/store';
import { prSubmitted, queueCreated, testQueueId } from '../testing/fixtures';
import { RecordedEventFactory } from '../testing/recorded';
import { testRunContract } from './contract';
import { targetsSet, testRunStarted } from '../testing/testruns';

const url = process.env.RAILYARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
// One namespace per test file and process: other suites and parallel runs never share keys.
const namespace = `test-rm-testruns-${process.pid}`;
const keys = redisKeys(namespace);
const Q = testQueueId();
const AT = '2026-04-01T12:00:00.000Z';
let redis: Redis;

beforeAll(() => {
  redis = new Redis(url, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  const leftovers = await redis.keys(`ry:{${namespace}}:*`);
  if (leftovers.length > 0) await redis.del(...leftovers);
  await redis.quit();
});

testRunContract('redis', () => new RedisReadModelStore({ redis: url, namespace }));

describe('test runs in Redis', () => {
  it('when a run starts, then its documents sit under the namespace hash tag and reset removes them', async () => {
    const store = new RedisReadModelStore({ redis, namespace });
    try {
      await store.reset();
      const f = new RecordedEventFactory();
      await store.apply(f.record(Q, queueCreated(Q, AT), prSubmitted(1, AT), targetsSet(1, 'sha-1', AT), testRunStarted('run-1', AT)));
      const written = (await redis.keys(`*${namespace}*`)).sort();
      expect(written).toEqual(
        [
          keys.checkpoint,
          keys.queue(Q),
          keys.active(Q),
          keys.queueAnswer(Q),
          keys.prAnswers(Q),
          keys.pr(Q, 1),
          keys.testRun(Q, 'run-1'),
          keys.testRunTargets(Q, 1),
        ].sort(),
      );
      await store.reset();
      expect(await redis.keys(`*${namespace}*`)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

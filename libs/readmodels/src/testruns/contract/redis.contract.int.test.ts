import { redisKeys } from '../../redis/keys';
import { RedisReadModelStore } from '../../queue/redis/store';
import { prSubmitted, queueCreated, testQueueId } from '../../testing/fixtures';
import { RecordedEventFactory } from '../../testing/recorded';
import { redisBed } from '../../testing/redis';
import { targetsSet, testRunStarted } from '../../testing/testruns';
import { testRunContract } from './testruns.contract';

const bed = redisBed('rm-testruns');
const keys = redisKeys(bed.namespace);
const Q = testQueueId();
const AT = '2026-04-01T12:00:00.000Z';

testRunContract('redis', () => new RedisReadModelStore({ redis: bed.url, namespace: bed.namespace }));

describe('test runs in Redis', () => {
  it('when a run starts, then its documents sit under the namespace hash tag and reset removes them', async () => {
    const store = new RedisReadModelStore({ redis: bed.redis, namespace: bed.namespace });
    try {
      await store.reset();
      const f = new RecordedEventFactory();
      await store.apply(f.record(Q, queueCreated(Q, AT), prSubmitted(1, AT), targetsSet(1, 'sha-1', AT), testRunStarted('run-1', AT)));
      expect(await bed.keys()).toEqual(
        [
          keys.checkpoint,
          keys.queue(Q),
          keys.active(Q),
          keys.answerVersion(Q),
          keys.prNumbers(Q),
          keys.pr(Q, 1),
          keys.testRun(Q, 'run-1'),
          keys.testRunTargets(Q, 1),
        ].sort(),
      );
      await store.reset();
      expect(await bed.keys()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

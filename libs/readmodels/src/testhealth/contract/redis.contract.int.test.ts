import { MemoryBlobStore } from '@railyard/eventstore';
import { caseOf, TestHealthEventFactory, TH_REPO, TH_REPO_ID, uploadOf } from '../../testing/testhealth';
import { redisBed, redisSpecifics } from '../../testing/redis';
import { MemoryTestHealthStore } from '../memory/store';
import type { TestHealthReadModels } from '../port';
import { testHealthKeys } from '../redis/keys';
import { RedisTestHealthStore } from '../redis/store';
import { testHealthContract } from './testhealth.contract';
import { freshStoreEach } from '../../testing/fresh-store';

const bed = redisBed('th-contract');
const keys = testHealthKeys(bed.namespace);
const blobs = new MemoryBlobStore();
const AT = '2026-03-01T09:00:00.000Z';
const minute = (i: number): string => new Date(Date.parse(AT) + i * 60_000).toISOString();
const passing = Array.from({ length: 30 }, (_, i) => caseOf(`p${i}`, 'passed'));
/** The documents and histories of the given cases: what a test page shows of them. */
const seenOf = async (store: TestHealthReadModels, cases: readonly ReturnType<typeof caseOf>[]) => {
  const ids = cases.map((c) => c.id);
  return { docs: await store.getTests(TH_REPO_ID, ids), histories: await store.getHistories(TH_REPO_ID, ids) };
};

testHealthContract('redis', (blobs, options) => new RedisTestHealthStore({ redis: bed.url, namespace: bed.namespace, blobs, ...options }));

redisSpecifics(bed, () => keys.checkpoint, {
  // Small script calls of different sizes, so the two writers' calls interleave inside one upload.
  open: (redis, writer) => new RedisTestHealthStore({ redis, namespace: bed.namespace, blobs, chunkTests: writer === 0 ? 5 : 7 }),
  memory: () => new MemoryTestHealthStore({ blobs }),
  history: () => {
    const factory = new TestHealthEventFactory();
    return Array.from({ length: 6 }, (_, i) => factory.record(TH_REPO, uploadOf(passing, minute(i)))).flat();
  },
  afterReset: () => new TestHealthEventFactory().record(TH_REPO, uploadOf([caseOf('fresh', 'passed')], AT)),
  seen: (store: TestHealthReadModels) => seenOf(store, [...passing, caseOf('fresh', 'passed')]),
  batches: [2, 3],
});

describe('RedisTestHealthStore specifics', () => {
  let store: RedisTestHealthStore;

  freshStoreEach(
    () => new RedisTestHealthStore({ redis: bed.redis, namespace: bed.namespace, blobs }),
    (s) => (store = s),
  );

  it('when an upload is applied, then every key it writes is under the namespace hash tag and apart from the queue models', async () => {
    const c = caseOf('k', 'failed');
    await store.apply(new TestHealthEventFactory().record(TH_REPO, uploadOf([c], AT)));

    const written = await bed.keys();
    expect(written).toEqual(
      [
        keys.checkpoint,
        keys.repos,
        keys.test(TH_REPO_ID, c.id),
        keys.runs(TH_REPO_ID, c.id),
        keys.uploads(TH_REPO_ID),
        keys.uploadTimes(TH_REPO_ID),
        keys.failures(TH_REPO_ID),
      ].sort(),
    );
    expect(written.every((k) => k.startsWith(`ry:{${bed.namespace}}:th:`))).toBe(true);
  });

  it('when a large upload is written in many script calls, then the result equals a single call', async () => {
    // given
    const cases = Array.from({ length: 40 }, (_, i) => caseOf(`c${i}`, i % 3 === 0 ? 'failed' : 'passed'));
    const events = new TestHealthEventFactory().record(TH_REPO, uploadOf(cases, AT), uploadOf(cases, minute(60)));
    await store.apply(events);
    const whole = await seenOf(store, cases);
    await store.reset();

    // when
    const chunked = new RedisTestHealthStore({ redis: bed.redis, namespace: bed.namespace, blobs, chunkTests: 3 });
    await chunked.apply(events);
    await chunked.close();

    // then
    expect(await seenOf(store, cases)).toEqual(whole);
  });
});

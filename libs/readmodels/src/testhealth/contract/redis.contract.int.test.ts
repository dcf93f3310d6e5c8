import Redis from 'ioredis';
import { MemoryBlobStore } from '@railyard/eventstore';
import { RedisTestHealthStore } from '../redis/store';
import { testHealthKeys } from '../redis/keys';
import { caseOf, TestHealthEventFactory, TH_REPO, TH_REPO_ID, uploadOf } from '../../testing/testhealth';
import { testHealthContract } from './testhealth.contract';

const url = process.env.RAILYARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
// One namespace per test file and process, so parallel runs and other suites never share keys.
const namespace = `test-th-contract-${process.pid}`;
const AT = '2026-03-01T09:00:00.000Z';

let redis: Redis;

beforeAll(() => {
  redis = new Redis(url, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  const leftovers = await redis.keys(`ry:{${namespace}}:*`);
  if (leftovers.length > 0) await redis.del(...leftovers);
  await redis.quit();
});

testHealthContract('redis', (blobs, options) => new RedisTestHealthStore({ redis: url, namespace, blobs, ...options }));

describe('RedisTestHealthStore specifics', () => {
  const keys = testHealthKeys(namespace);
  const blobs = new MemoryBlobStore();
  let store: RedisTestHealthStore;

  beforeEach(async () => {
    store = new RedisTestHealthStore({ redis, namespace, blobs });
    await store.reset();
  });

  afterEach(async () => {
    await store.reset();
    await store.close();
  });

  it('when an upload is applied, then every key it writes is under the namespace hash tag and apart from the queue models', async () => {
    const c = caseOf('k', 'failed');
    await store.apply(new TestHealthEventFactory().record(TH_REPO, uploadOf([c], AT)));

    const written = (await redis.keys(`*${namespace}*`)).sort();
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
    expect(written.every((k) => k.startsWith(`ry:{${namespace}}:th:`))).toBe(true);
  });

  it('when a large upload is written in many script calls, then the result equals a single call', async () => {
    // given
    const cases = Array.from({ length: 40 }, (_, i) => caseOf(`c${i}`, i % 3 === 0 ? 'failed' : 'passed'));
    const events = new TestHealthEventFactory().record(TH_REPO, uploadOf(cases, AT), uploadOf(cases, '2026-03-01T10:00:00.000Z'));
    await store.apply(events);
    const whole = {
      docs: await store.getTests(
        TH_REPO_ID,
        cases.map((c) => c.id),
      ),
      histories: await store.getHistories(
        TH_REPO_ID,
        cases.map((c) => c.id),
      ),
    };
    await store.reset();

    // when
    const chunked = new RedisTestHealthStore({ redis, namespace, blobs, chunkTests: 3 });
    await chunked.apply(events);
    await chunked.close();

    // then
    expect({
      docs: await store.getTests(
        TH_REPO_ID,
        cases.map((c) => c.id),
      ),
      histories: await store.getHistories(
        TH_REPO_ID,
        cases.map((c) => c.id),
      ),
    }).toEqual(whole);
  });

  it('when two stores apply the same events at once, then each test has each run once', async () => {
    // given
    const cases = Array.from({ length: 30 }, (_, i) => caseOf(`p${i}`, 'passed'));
    const factory = new TestHealthEventFactory();
    const events = Array.from({ length: 6 }, (_, i) =>
      factory.record(TH_REPO, uploadOf(cases, new Date(Date.parse(AT) + i * 60_000).toISOString())),
    ).flat();
    const second = new RedisTestHealthStore({ redis: url, namespace, blobs, chunkTests: 7 });
    const first = new RedisTestHealthStore({ redis, namespace, blobs, chunkTests: 5 });

    // when
    try {
      await Promise.all([
        (async () => {
          for (let i = 0; i < events.length; i += 2) await first.apply(events.slice(i, i + 2));
        })(),
        (async () => {
          for (let i = 0; i < events.length; i += 3) await second.apply(events.slice(i, i + 3));
        })(),
      ]);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }

    // then
    const histories = await store.getHistories(
      TH_REPO_ID,
      cases.map((c) => c.id),
    );
    expect(histories.every((h) => h.runs.length === 6 && h.revision === 5)).toBe(true);
    expect(await store.checkpoint()).toBe(6n);
  });

  it('when a reset was cut short, then the next apply finishes it before writing', async () => {
    const factory = new TestHealthEventFactory();
    const old = caseOf('old', 'passed');
    await store.apply(factory.record(TH_REPO, uploadOf([old], AT)));
    await redis.set(keys.checkpoint, 'resetting');

    const fresh = caseOf('fresh', 'passed');
    await store.apply(new TestHealthEventFactory().record(TH_REPO, uploadOf([fresh], AT)));

    expect(await store.getTest(TH_REPO_ID, old.id)).toBeNull();
    expect(await store.getTest(TH_REPO_ID, fresh.id)).not.toBeNull();
    expect(await store.checkpoint()).toBe(1n);
  });
});

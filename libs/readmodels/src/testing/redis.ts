import type { RecordedEvent } from '@railyard/eventstore';
import Redis from 'ioredis';
import { RESETTING } from '../redis/checkpointed';
import { freshStoreEach } from './fresh-store';

/** Where read-model tests find Redis unless RAILYARD_TEST_REDIS_URL says otherwise. */
export const TEST_REDIS_URL = process.env.RAILYARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** One test file's Redis: a namespace of its own (per file and process, so parallel runs never share keys) and a client. */
export interface RedisBed {
  readonly url: string;
  readonly namespace: string;
  /** Open from the file's beforeAll to its afterAll. */
  readonly redis: Redis;
  /** Every key of the namespace, sorted. */
  keys(): Promise<string[]>;
}

/** Registers the file's beforeAll/afterAll: the client opens first, and the namespace's keys are removed at the end. */
export const redisBed = (name: string): RedisBed => {
  const namespace = `test-${name}-${process.pid}`;
  let client: Redis | undefined;
  const redis = (): Redis => {
    if (!client) throw new Error('redisBed: the client opens in beforeAll; use it inside a test or hook');
    return client;
  };
  beforeAll(() => {
    client = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    const leftovers = await redis().keys(`ry:{${namespace}}:*`);
    if (leftovers.length > 0) await redis().del(...leftovers);
    await redis().quit();
  });
  return {
    url: TEST_REDIS_URL,
    namespace,
    get redis() {
      return redis();
    },
    keys: async () => (await redis().keys(`*${namespace}*`)).sort(),
  };
};

/** What the Redis specifics need of a store: the projection's side of every read-model port. */
interface Projected {
  apply(events: RecordedEvent[]): Promise<void>;
  checkpoint(): Promise<bigint | null>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

export interface RedisSpecificsCase<S extends Projected, M extends Pick<Projected, 'apply'>> {
  /** A store on the bed's namespace, over the shared client or (the second writer) a connection of its own. */
  open(redis: Redis | string, writer: 0 | 1): S;
  /** The memory adapter of the same port: what one writer applying each event once gives. */
  memory(): M;
  /** A history, recorded from position 1 each time it is called. */
  history(): RecordedEvent[];
  /** Another history from position 1, written after a reset. */
  afterReset(): RecordedEvent[];
  /** The answers compared between the Redis store and the memory one. */
  seen(store: S | M): Promise<unknown>;
  /** Batch sizes of the two concurrent writers. */
  batches: readonly [number, number];
}

/**
 * What every Redis read model promises beyond its port's contract: a reset cut short (a crash inside
 * reset()) is finished by the next apply, and two writers applying the same events at once (two
 * projectors during a lease hand-over) leave what one writer applying each event once leaves.
 */
export const redisSpecifics = <S extends Projected, M extends Pick<Projected, 'apply'>>(
  bed: RedisBed,
  checkpointKey: () => string,
  c: RedisSpecificsCase<S, M>,
): void => {
  describe('Redis specifics every read model shares', () => {
    let store: S;
    freshStoreEach(
      () => c.open(bed.redis, 0),
      (s) => (store = s),
    );

    it('when a reset was cut short, then the next apply finishes it before writing', async () => {
      await store.apply(c.history());
      await bed.redis.set(checkpointKey(), RESETTING);
      expect(await store.checkpoint()).toBeNull();

      const fresh = c.afterReset();
      await store.apply(fresh);
      const memory = c.memory();
      await memory.apply(fresh);
      expect(await c.seen(store)).toEqual(await c.seen(memory));
      expect(await store.checkpoint()).toBe(fresh.at(-1)?.position);
    });

    it('when two stores write the same namespace at once, then the result equals one store applying each event once', async () => {
      const events = c.history();
      const second = c.open(bed.url, 1);
      try {
        await Promise.all(
          [store, second].map(async (writer, w) => {
            const size = c.batches[w] as number;
            for (let i = 0; i < events.length; i += size) await writer.apply(events.slice(i, i + size));
          }),
        );
      } finally {
        await second.close();
      }
      const memory = c.memory();
      await memory.apply(events);
      expect(await c.seen(store)).toEqual(await c.seen(memory));
      expect(await store.checkpoint()).toBe(events.at(-1)?.position);
    });
  });
};

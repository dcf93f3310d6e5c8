import { deserialize, serialize } from 'node:v8';
import type Redis from 'ioredis';
import { redisKeys } from '@railyard/readmodels';
import type { EngineSnapshotHead, EngineSnapshotStore, EngineSnapshotStream } from './state-snapshots';

/**
 * The standalone engines' snapshot in Redis, beside the read models (docs/decisions.md D292): a hash
 * of stream states and the head, written in one MULTI. Every engine reads the whole log, so any
 * engine's head lists every queue; each writes the states of the queues it drove, and a state
 * another engine wrote is as good (each is checked against its stream before it is used).
 */
export class RedisEngineState implements EngineSnapshotStore {
  private readonly head: string;
  private readonly streams: string;

  constructor(
    private readonly redis: Redis,
    namespace: string,
  ) {
    const keys = redisKeys(namespace);
    this.head = keys.engineHead;
    this.streams = keys.engineStreams;
  }

  async load(): Promise<{ head: EngineSnapshotHead | null; streams: EngineSnapshotStream[] }> {
    const [head, streams] = await Promise.all([this.redis.getBuffer(this.head), this.redis.hgetallBuffer(this.streams)]);
    return {
      head: head ? (deserialize(head) as EngineSnapshotHead) : null,
      streams: Object.values(streams).map((b) => deserialize(b) as EngineSnapshotStream),
    };
  }

  async save(head: EngineSnapshotHead, streams: EngineSnapshotStream[]): Promise<void> {
    const multi = this.redis.multi();
    for (const s of streams) multi.hset(this.streams, s.streamId, serialize(s));
    multi.set(this.head, serialize(head));
    await multi.exec();
  }

  async close(): Promise<void> {
    // The connection is the engine's: it closes it.
  }
}

import { createHash } from 'node:crypto';
import type Redis from 'ioredis';

/** The keys and arguments of one script run, as a read model's batch write makes them. */
export interface ScriptCall {
  keys: string[];
  args: string[];
}

/** A Lua script run by digest, loaded on the first NOSCRIPT (after a Redis restart or SCRIPT FLUSH). */
export class LuaScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: Redis, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

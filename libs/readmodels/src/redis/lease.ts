import type Redis from 'ioredis';
import { DELETE_IF_EQUALS, EXTEND_IF_EQUALS } from './scripts';

export interface RedisLeaseOptions {
  redis: Redis;
  /** Use RedisKeys.lease(name) so the lease lives in the namespace it guards. */
  key: string;
  /** Unique per process (host, pid and a random part): the value only the holder may renew or release. */
  owner: string;
  /** How long the lease survives a holder that stopped renewing. */
  ttlMs: number;
  /** Default ttlMs / 3, so two renewals can fail before the lease runs out. */
  renewEveryMs?: number;
  /** How often a waiting contender tries again. Default ttlMs / 4. */
  retryEveryMs?: number;
}

type LostListener = () => void;

/**
 * A single-holder lease in Redis (SET NX PX, renewed by the holder). It is a liveness device, not a
 * fence: a holder paused past its TTL may still write once more, which is why the read-model writes
 * carry their own compare-and-set on the checkpoint.
 */
export class RedisLease {
  private renewTimer: NodeJS.Timeout | null = null;
  private lastRenewed = 0;
  private isHeld = false;
  private readonly lostListeners = new Set<LostListener>();

  constructor(private readonly options: RedisLeaseOptions) {}

  get held(): boolean {
    return this.isHeld;
  }

  get owner(): string {
    return this.options.owner;
  }

  /** One attempt; true when this owner now holds the lease. */
  async tryAcquire(): Promise<boolean> {
    if (this.isHeld) return true;
    const { redis, key, owner, ttlMs } = this.options;
    const ok = await redis.set(key, owner, 'PX', ttlMs, 'NX');
    if (ok !== 'OK') return false;
    this.isHeld = true;
    this.lastRenewed = Date.now();
    this.scheduleRenewal();
    return true;
  }

  /** Waits until the lease is ours (true) or the signal aborts (false). Redis errors are retried. */
  async acquire(signal?: AbortSignal): Promise<boolean> {
    const every = this.options.retryEveryMs ?? Math.max(10, Math.floor(this.options.ttlMs / 4));
    while (!signal?.aborted) {
      try {
        if (await this.tryAcquire()) return true;
      } catch {
        // Redis unavailable: nobody can take the lease meanwhile that we could not, so just try again.
      }
      await abortableSleep(every, signal);
    }
    return false;
  }

  /** Called once when a held lease is found taken or expired; the holder must stop writing. */
  onLost(listener: LostListener): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  async release(): Promise<void> {
    if (!this.isHeld) return;
    this.stopRenewing();
    this.isHeld = false;
    await DELETE_IF_EQUALS.run(this.options.redis, [this.options.key], [this.options.owner]);
  }

  private scheduleRenewal(): void {
    const every = this.options.renewEveryMs ?? Math.max(10, Math.floor(this.options.ttlMs / 3));
    this.renewTimer = setTimeout(() => void this.renew(), every);
    this.renewTimer.unref();
  }

  private async renew(): Promise<void> {
    if (!this.isHeld) return;
    const { redis, key, owner, ttlMs } = this.options;
    let outcome: 'extended' | 'taken' | 'unknown';
    try {
      outcome = (await EXTEND_IF_EQUALS.run(redis, [key], [owner, String(ttlMs)])) === 1 ? 'extended' : 'taken';
    } catch {
      // A failed renewal is not yet a loss; it becomes one once the TTL has run out since the last success.
      outcome = 'unknown';
    }
    if (!this.isHeld) return;
    if (outcome === 'extended') this.lastRenewed = Date.now();
    if (outcome === 'taken' || Date.now() - this.lastRenewed >= ttlMs) {
      this.isHeld = false;
      this.stopRenewing();
      for (const listener of this.lostListeners) listener();
      return;
    }
    this.scheduleRenewal();
  }

  private stopRenewing(): void {
    if (this.renewTimer) clearTimeout(this.renewTimer);
    this.renewTimer = null;
  }
}

const abortableSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

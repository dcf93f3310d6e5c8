import type { EventStore } from '@railyard/eventstore';
import type { ReadModelStore } from '@railyard/readmodels';
import { ApiError } from '../http/errors';

/** Who keeps the read models: the holder of the projector lease in Redis, or the API's own process. */
export interface ProjectorPresence {
  /** The holder's id, or null when no projector holds the lease (none runs, or the last one died and its lease ran out). */
  holder(): Promise<string | null>;
}

/** The embedded shape: the projector runs inside the API's process, so it is there whenever the API answers. */
export const inProcessProjector: ProjectorPresence = { holder: async () => 'in-process' };

export type ProjectionProblemCode = 'PROJECTOR_UNAVAILABLE' | 'READ_MODELS_BEHIND';

export interface ProjectionStatus {
  ready: boolean;
  projector: { running: boolean; holder: string | null };
  lag: { behind: boolean; seconds: number; maxSeconds: number; checkpoint: string | null; head: string | null };
  problems: { code: ProjectionProblemCode; message: string }[];
}

export interface ProjectionHealthOptions {
  eventStore: Pick<EventStore, 'headPosition' | 'readAll'>;
  readModels: Pick<ReadModelStore, 'checkpoint'>;
  presence: ProjectorPresence;
  /** Over this lag (age of the oldest event not yet applied) the read models count as behind. */
  maxLagMs: number;
  /** Wall clock, compared with the store's recordedAt (not the domain clock tests may fake). */
  nowMs?: () => number;
  /**
   * How long a read reuses the last status (default 250 ms; 0: never). Checking costs three round trips
   * (lease, head, checkpoint): ~0.8-1.7 ms on every read, measured; 250 ms of staleness is nothing next
   * to the lease TTL that already delays noticing a dead projector. /readyz always checks afresh.
   */
  readCacheMs?: number;
  /**
   * How long a write reuses the last write's check (default 100 ms; 0: never). On PostgreSQL the
   * check is two round trips (head, oldest unapplied event), more than the write's own share of its
   * append batch; 100 ms is nothing next to the 10 s projector lease that bounds noticing a dead
   * projector, and a write let through in that window waits for its read models as every write does
   * (docs/decisions.md, D44).
   */
  writeCacheMs?: number;
}

export const DEFAULT_READ_CACHE_MS = 250;
export const DEFAULT_WRITE_CACHE_MS = 100;

type CacheSlot = 'read' | 'write';

/** What a client is told to wait before retrying a write the projection cannot serve yet. */
export const PROJECTION_RETRY_AFTER_SECONDS = 5;

/**
 * How far the queue read models are from the event store, and whether anyone is moving them: what
 * /readyz reports, what makes writes fail fast (docs/operations.md, "Readiness"), and what tells the
 * read routes to answer from the event store instead (docs/api.md, "Reads while the read models lag").
 */
export class ProjectionHealth {
  private readonly nowMs: () => number;
  private readonly cached = new Map<CacheSlot, { at: number; status: Promise<ProjectionStatus> }>();

  constructor(private readonly options: ProjectionHealthOptions) {
    this.nowMs = options.nowMs ?? Date.now;
  }

  /** True when the store holds events the read models have not applied: a miss there may be a lie. */
  async behind(): Promise<boolean> {
    const [head, checkpoint] = await Promise.all([this.options.eventStore.headPosition(), this.options.readModels.checkpoint()]);
    return isBehind(head, checkpoint);
  }

  async status(): Promise<ProjectionStatus> {
    const { eventStore, readModels, presence, maxLagMs } = this.options;
    const [holder, head, checkpoint] = await Promise.all([presence.holder(), eventStore.headPosition(), readModels.checkpoint()]);
    const behind = isBehind(head, checkpoint);
    let lagMs = 0;
    if (behind) {
      const [oldest] = await eventStore.readAll(checkpoint, 1);
      if (oldest) lagMs = Math.max(0, this.nowMs() - Date.parse(oldest.recordedAt));
    }
    const problems: ProjectionStatus['problems'] = [];
    if (holder === null)
      problems.push({
        code: 'PROJECTOR_UNAVAILABLE',
        message: 'no projector holds the projector lease: the read models are not being updated',
      });
    if (lagMs > maxLagMs)
      problems.push({
        code: 'READ_MODELS_BEHIND',
        message: `the read models are ${(lagMs / 1000).toFixed(1)} s behind the event store (limit ${maxLagMs / 1000} s)`,
      });
    return {
      ready: problems.length === 0,
      projector: { running: holder !== null, holder },
      lag: {
        behind,
        seconds: lagMs / 1000,
        maxSeconds: maxLagMs / 1000,
        checkpoint: checkpoint?.toString() ?? null,
        head: head?.toString() ?? null,
      },
      problems,
    };
  }

  /**
   * Refuses a write, before anything is stored, when its answer could only come after the
   * read-your-writes timeout: nobody projects, or the models are too far behind to catch up in time.
   */
  async assertWritable(): Promise<void> {
    const status = await this.recentStatus('write', this.options.writeCacheMs ?? DEFAULT_WRITE_CACHE_MS);
    const [problem] = status.problems;
    if (!problem) return;
    throw new ApiError(503, problem.code, `${problem.message}; nothing was changed, try again later`, undefined, {
      'Retry-After': String(PROJECTION_RETRY_AFTER_SECONDS),
    });
  }

  /** Reads come from the event store while the read models cannot be trusted to be nearly current. */
  async readFromStore(): Promise<boolean> {
    const status = await this.recentStatus('read', this.options.readCacheMs ?? DEFAULT_READ_CACHE_MS);
    return status.lag.behind && !status.ready;
  }

  /**
   * The status at most maxAge old; concurrent callers share one check. Reads and writes keep their
   * own, so a write never acts on a check made for a read's longer tolerance.
   */
  private recentStatus(slot: CacheSlot, maxAge: number): Promise<ProjectionStatus> {
    const now = Date.now();
    const cached = this.cached.get(slot);
    if (cached && now - cached.at <= maxAge) return cached.status;
    const status = this.status();
    if (maxAge > 0) this.cached.set(slot, { at: now, status });
    else this.cached.delete(slot);
    // A failed check is not kept: the next caller tries again.
    status.catch(() => {
      if (this.cached.get(slot)?.status === status) this.cached.delete(slot);
    });
    return status;
  }
}

const isBehind = (head: bigint | null, checkpoint: bigint | null): boolean => head !== null && (checkpoint === null || checkpoint < head);

import { parseQueueId, QUEUE_STREAM_PREFIX, type RepoRef } from '@railyard/domain';
import type { BlobStore, EventStore, Subscription } from '@railyard/eventstore';
import type { GitHost, LocalGitAdmin, LocalGitWriter } from '@railyard/githost';
import { errorFields, type Logger } from '@railyard/observability';
import type { CiPort } from './ci/port';
import { EngineCommands } from './engine-commands';
import { FactsReader } from './facts';
import { QueueDriver, type DriverStats } from './queue-driver';
import { TargetOverlapsCache } from './targets';

export interface EngineOptions {
  eventStore: EventStore;
  gitRoot: string;
  gitHost: GitHost;
  writer: LocalGitWriter;
  admin: LocalGitAdmin;
  ci: CiPort;
  logger: Logger;
  /** Where impacted-target lists are stored: parallel mode reads them to find overlapping PRs. Without it every PR counts as impacting everything. */
  blobs?: BlobStore;
  now?: () => Date;
  /** Every queue is looked at this often: timeouts, pushes, closes, and branch clean-up. */
  tickMs?: number;
  /** Whether this process may drive a queue now; always true in the embedded shape. */
  owns?: (queueId: string) => Promise<boolean>;
  /** Called when a queue is no longer driven here, so its lease can be released. */
  onRelease?: (queueId: string) => Promise<void>;
}

export interface EngineHandle {
  stop(): Promise<void>;
  /** Ask for a pass on every queue now (tests, and a status change that CI reported elsewhere). */
  poke(): void;
  /** Settles when no queue has a pass running or due. */
  idle(): Promise<void>;
  stats(): Record<string, DriverStats>;
}

const sameRepo = (a: RepoRef, b: RepoRef): boolean => a.host === b.host && a.owner === b.owner && a.name === b.name;

/**
 * The merge engine: a process manager over every queue stream. Events on a queue, CI status changes
 * and a clock tick each trigger a pass of that queue's driver.
 */
export const startEngine = (options: EngineOptions): EngineHandle => {
  const now = options.now ?? (() => new Date());
  const commands = new EngineCommands(options.eventStore, now);
  const facts = new FactsReader(options.gitRoot, options.gitHost, options.ci, new TargetOverlapsCache(options.blobs));
  const drivers = new Map<string, QueueDriver>();
  const deps = {
    commands,
    facts,
    writer: options.writer,
    admin: options.admin,
    ci: options.ci,
    gitRoot: options.gitRoot,
    logger: options.logger,
    now,
    owns: options.owns ?? (async () => true),
  };
  const driverOf = (queueId: string): QueueDriver => {
    let d = drivers.get(queueId);
    if (!d) {
      d = new QueueDriver(queueId, deps);
      drivers.set(queueId, d);
    }
    return d;
  };

  const subscription: Subscription = options.eventStore.subscribe({
    fromPosition: null,
    onEvents: async (events) => {
      const touched = new Set<string>();
      for (const e of events)
        if (e.streamId.startsWith(QUEUE_STREAM_PREFIX) && e.metadata.actor !== 'engine')
          touched.add(e.streamId.slice(QUEUE_STREAM_PREFIX.length));
      for (const q of touched) driverOf(q).schedule();
    },
    onError: (err) => options.logger.error('engine subscription failed', errorFields(err)),
  });

  const offCi = options.ci.onChange((repo) => {
    for (const d of drivers.values()) {
      const { repo: queueRepo } = parseQueueId(d.queueId);
      if (sameRepo(repo, queueRepo)) d.schedule();
    }
  });

  const tick = setInterval(() => {
    for (const d of drivers.values()) d.schedule({ sweep: true });
  }, options.tickMs ?? 1000);
  tick.unref();

  options.logger.info('engine started', { tickMs: options.tickMs ?? 1000 });
  return {
    poke: () => {
      for (const d of drivers.values()) d.schedule({ sweep: true });
    },
    idle: async () => {
      await Promise.all([...drivers.values()].map((d) => d.idle()));
    },
    stats: () => Object.fromEntries([...drivers].map(([q, d]) => [q, { ...d.stats }])),
    stop: async () => {
      clearInterval(tick);
      offCi();
      await subscription.close();
      await Promise.all([...drivers.values()].map((d) => d.stop()));
      if (options.onRelease) await Promise.all([...drivers.keys()].map((q) => options.onRelease?.(q)));
    },
  };
};

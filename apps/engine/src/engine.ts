import { randomUUID } from 'node:crypto';
import { parseQueueId, queueStreamOf, QUEUE_STREAM_PREFIX, type HostProblemCode, type PrSubmitted } from '@railyard/domain';
import type { Backoff, BlobStore, EventStore, RecordedEvent } from '@railyard/eventstore';
import { errorFields, railyardMetrics, timeEngineAction, type Logger } from '@railyard/observability';
import { ENGINE_ACTOR, engineLog, engineWriter } from './engine-commands';
import { FactsReader } from './facts';
import {
  hostErrorCode,
  QueueDriver,
  type CiPort,
  type CodeHost,
  type DriverStats,
  type HostEvent,
  type HostPullRequest,
} from '@railyard/queue-driver';
import { gatherWindowMs } from './gather';
import { engineMetrics, watchReaps } from './metrics';
import { QueueLoop } from './queue-loop';
import { TargetOverlapsCache } from './targets';
import { TestResultsIndex, withTestResults } from './test-health-facts';
import { resumeEngine, scheduleEngineSnapshots, type EngineProgress, type EngineSnapshotSettings } from './state-snapshots';

export interface EngineOptions {
  eventStore: EventStore;
  /** The code host the engine builds, lands and reads on (the local host's LocalCodeHost, or a forge's adapter). */
  host: CodeHost;
  ci: CiPort;
  logger: Logger;
  /** Where impacted-target lists are stored: parallel mode reads them to find overlapping PRs. Without it every PR counts as impacting everything. */
  blobs?: BlobStore;
  now?: () => Date;
  /** Every queue is planned this often without an event: timeouts and batch waits. A pass with nothing new costs no host call. */
  tickMs?: number;
  /** Every queue's host facts are re-read this often (the safety net for a missed event), and orphan test branches swept. */
  verifyMs?: number;
  /** Mergeability worked out per second for PRs behind each queue's window (docs/engine.md, "Mergeability"). */
  mergeabilityPerSecond?: number;
  backoff?: Backoff;
  /**
   * How long a pass waits after an API command on its queue, to serve the commands that follow it too;
   * a queue with many entries waits longer (`gatherWindowMs`).
   */
  gatherMs?: number;
  /** Whether this process may drive a queue now; always true in the embedded shape. */
  owns?: (queueId: string) => Promise<boolean>;
  /** Called when a queue is no longer driven here, so its lease can be released. */
  onRelease?: (queueId: string) => Promise<void>;
  /** Where the engine's state is saved and resumed from, so a start reads only the log's tail (D292); none: from the start. */
  snapshots?: EngineSnapshotSettings;
}

export interface EngineHandle {
  stop(): Promise<void>;
  /** Ask for a pass on every queue now, re-reading every host fact (tests, and a change the host could not announce). */
  poke(): void;
  /** Ask for a pass on one queue now: another engine released its lease, so this one may take it over at once. */
  wake(queueId: string): void;
  /** Settles when no queue has a pass running or due. */
  idle(): Promise<void>;
  stats(): Record<string, DriverStats>;
  /** Queues whose last pass failed, with the number of failures in a row. */
  failing(): Record<string, number>;
}

/** The host PR a submission event describes: the API read it from the host, and only open PRs are submitted. */
const submittedPull = (d: PrSubmitted['data']): HostPullRequest => ({
  number: d.prNumber,
  title: d.title,
  author: d.author,
  headSha: d.headSha,
  baseBranch: d.baseBranch,
  state: 'open',
});

const problemOf = (err: unknown): { code: HostProblemCode; detail: string } | null => {
  const code = hostErrorCode(err);
  const detail = err instanceof Error ? err.message : String(err);
  if (code === 'REPO_NOT_FOUND') return { code: 'REPOSITORY_NOT_FOUND', detail };
  if (code === 'INVALID_INPUT') return { code: 'INVALID_TARGET_BRANCH', detail };
  return null;
};

/**
 * The merge engine: a process manager over every queue stream. A queue is planned when its stream
 * gets an event from someone else, when the host or CI announces a change that concerns it, on a
 * tick (time-based decisions), and on a slower verification that re-reads its host facts.
 */
export const startEngine = (options: EngineOptions): EngineHandle => {
  const now = options.now ?? (() => new Date());
  const commands = engineWriter(options.eventStore, now);
  const facts = new FactsReader(options.host, options.ci, new TargetOverlapsCache(options.blobs), {
    ...(options.mergeabilityPerSecond !== undefined ? { mergeabilityPerSecond: options.mergeabilityPerSecond } : {}),
  });
  // Failing runs are judged with their JUnit results (docs/engine.md, Flakes).
  const judgedFacts = withTestResults(facts, new TestResultsIndex(options.eventStore, options.blobs), {
    onError: (err) => options.logger.warn('engine could not read test results; judging failures without them', errorFields(err)),
    reportsPending: (testRunId) => options.ci.reportsPending?.(testRunId) ?? false,
    rerunnableChecks: (repo, sha, configSha) => options.ci.rerunnableChecks?.(repo, sha, configSha) ?? Promise.resolve(undefined),
  });
  const loops = new Map<string, QueueLoop>();
  const unwatch = new Map<string, () => void>();
  const failing = new Set<string>();
  const missing = new Set<string>();
  const owns = options.owns ?? (async () => true);
  let stopping = false;

  const onHostEvent = (event: HostEvent): void => {
    for (const q of facts.onEvent(event)) loops.get(q)?.schedule();
  };

  const recordProblem = async (queueId: string, problem: { code: HostProblemCode; detail: string } | null): Promise<void> => {
    if (problem?.code === 'REPOSITORY_NOT_FOUND') missing.add(queueId);
    else missing.delete(queueId);
    engineMetrics.queuesRepositoryMissing.set(missing.size);
    await commands
      .execute(queueStreamOf(queueId), { type: 'ReportHostProblem', problem }, { actor: ENGINE_ACTOR, correlationId: randomUUID() })
      .catch((err: unknown) => options.logger.warn('engine could not record a host problem', { queueId, ...errorFields(err) }));
  };

  const loopOf = (queueId: string): QueueLoop => {
    let loop = loops.get(queueId);
    if (loop) return loop;
    const driver = new QueueDriver({
      log: engineLog(commands, queueStreamOf(queueId)),
      facts: judgedFacts,
      host: options.host,
      ci: options.ci,
      logger: options.logger,
      now,
      newRunId: randomUUID,
      observe: timeEngineAction,
      observeHop: (hop, seconds) => railyardMetrics.engineHopSeconds.observe({ hop }, seconds),
      onRecorded: (s, events) => {
        for (const e of events) {
          if (e.type === 'TestRunStatusReported' && e.data.infrastructureError) {
            engineMetrics.infrastructureErrors.inc({ code: e.data.infrastructureError.code });
            options.logger.warn('engine: a check hit an infrastructure error; it will be run again, the PR is not blamed', {
              queueId: s.queueId,
              testRunId: e.data.testRunId,
              check: e.data.context,
              code: e.data.infrastructureError.code,
              detail: e.data.infrastructureError.message,
            });
          }
          if (e.type === 'TestRunStuck') {
            engineMetrics.runsStuck.inc({ code: e.data.code });
            options.logger.error('engine: a test run is stuck on infrastructure errors; restart its PRs once CI is mended', {
              queueId: s.queueId,
              testRunId: e.data.testRunId,
              code: e.data.code,
              detail: e.data.detail,
            });
          }
        }
      },
    });
    loop = new QueueLoop(queueId, driver, {
      owns,
      ...(options.backoff ? { backoff: options.backoff } : {}),
      observer: {
        onFailure: (err) => engineMetrics.passFailures.inc({ code: hostErrorCode(err) ?? 'OTHER' }),
        onFailing: async (err, delayMs) => {
          failing.add(queueId);
          engineMetrics.queuesFailing.set(failing.size);
          options.logger.error('engine pass failed; backing off', { queueId, delayMs, ...errorFields(err) });
          const problem = problemOf(err);
          if (problem) await recordProblem(queueId, problem);
        },
        onRecovered: async (failedPasses) => {
          failing.delete(queueId);
          engineMetrics.queuesFailing.set(failing.size);
          options.logger.info('engine pass succeeded again', { queueId, failedPasses });
          await recordProblem(queueId, null);
        },
      },
    });
    loops.set(queueId, loop);
    const { repo, branch } = parseQueueId(queueId);
    unwatch.set(queueId, options.host.watch(repo, [branch], onHostEvent));
    // The first pass of a queue re-reads everything and sweeps test branches a crash may have orphaned.
    loop.schedule({ verify: true });
    return loop;
  };

  let progress: EngineProgress | null = null;
  const onEvents = async (events: RecordedEvent[]): Promise<void> => {
    const touched = new Set<string>();
    for (const e of events) {
      if (!e.streamId.startsWith(QUEUE_STREAM_PREFIX) || e.metadata.actor === 'engine') continue;
      const queueId = e.streamId.slice(QUEUE_STREAM_PREFIX.length);
      touched.add(queueId);
      if (e.type === 'PrSubmitted') facts.learnSubmitted(queueId, submittedPull(e.data as PrSubmitted['data']));
    }
    // A burst of API commands on a queue is served by one pass a moment later, not one pass per command.
    for (const q of touched) {
      const loop = loopOf(q);
      loop.schedule({ withinMs: gatherWindowMs(options.gatherMs ?? 25, loop.driver.lastEntries) });
    }
    const lastEvent = events[events.length - 1];
    if (lastEvent) progress = { position: lastEvent.position, eventId: lastEvent.eventId, queues: () => [...loops.keys()] };
  };
  // Caught up: the log as it was at start is handled and every queue known then has had its first pass.
  const reportCaughtUp = (head: bigint | null): void => {
    const queues = [...loops.values()];
    void Promise.all(queues.map((l) => l.idle())).then(() =>
      options.logger.info('engine caught up', {
        position: head?.toString() ?? null,
        queues: queues.length,
        ms: Math.round(performance.now() - startedAt),
      }),
    );
  };
  // From the snapshot when one fits: its queues are driven at once and only the log after it is read.
  const startedAt = performance.now();
  const started = (async () => {
    const snap = options.snapshots;
    // A snapshot that cannot be read costs a longer start, never the start: the log is read from its beginning.
    const resumed = snap
      ? await resumeEngine(snap.store, options.eventStore, commands).catch((err: unknown) => {
          options.logger.error('engine snapshot unreadable; reading the log from the start', errorFields(err));
          return null;
        })
      : null;
    if (resumed)
      options.logger.info('engine state start', {
        ...resumed,
        position: resumed.position?.toString() ?? null,
        queues: resumed.queues.length,
      });
    if (stopping) return null;
    for (const q of resumed?.queues ?? []) loopOf(q);
    const head = await options.eventStore.headPosition();
    let caughtUp = head === null || (resumed?.position ?? -1n) >= head;
    const subscription = options.eventStore.subscribe({
      fromPosition: resumed?.position ?? null,
      onEvents: async (events) => {
        await onEvents(events);
        if (caughtUp || head === null || (progress?.position ?? -1n) < head) return;
        caughtUp = true;
        reportCaughtUp(head);
      },
      onError: (err) => options.logger.error('engine subscription failed', errorFields(err)),
    });
    if (caughtUp) reportCaughtUp(head);
    const snapshotting = snap ? scheduleEngineSnapshots(snap, commands, () => progress, options.logger, resumed?.position ?? null) : null;
    return { subscription, snapshotting };
  })();
  started.catch((err: unknown) => options.logger.error('engine could not start its subscription', errorFields(err)));

  const offCi = options.ci.onChange((repo, sha) => onHostEvent({ kind: 'status', repo, sha }));
  const reapsPending = options.ci.reapsPending?.bind(options.ci);
  const offReaps = reapsPending ? watchReaps(reapsPending) : () => undefined;

  const tickMs = options.tickMs ?? 1000;
  const verifyMs = options.verifyMs ?? 30_000;
  // An idle queue (no PR, nothing planned) waits for an event or the verify timer: thousands of empty
  // queues cost a state read, facts and a plan each per tick otherwise (issue 29's 5,000 queues).
  const tick = setInterval(() => {
    for (const loop of loops.values()) if (!loop.driver.idle) loop.schedule();
  }, tickMs);
  const verify = setInterval(() => {
    for (const loop of loops.values()) loop.schedule({ verify: true });
  }, verifyMs);
  tick.unref();
  verify.unref();

  options.logger.info('engine started', { tickMs, verifyMs });
  return {
    poke: () => {
      for (const loop of loops.values()) loop.schedule({ verify: true });
    },
    wake: (queueId) => {
      if (stopping) return;
      const loop = loops.get(queueId);
      if (loop) loop.schedule({ verify: true });
      else loopOf(queueId);
    },
    idle: async () => {
      await Promise.all([...loops.values()].map((l) => l.idle()));
    },
    stats: () => Object.fromEntries([...loops].map(([q, l]) => [q, { ...l.driver.stats }])),
    failing: () => Object.fromEntries([...loops].filter(([, l]) => l.consecutiveFailures > 0).map(([q, l]) => [q, l.consecutiveFailures])),
    stop: async () => {
      stopping = true;
      clearInterval(tick);
      clearInterval(verify);
      offCi();
      offReaps();
      const running = await started.catch(() => null);
      await running?.subscription.close();
      for (const off of unwatch.values()) off();
      await Promise.all([...loops.values()].map((l) => l.stop()));
      for (const q of loops.keys()) facts.drop(q);
      if (options.onRelease) await Promise.all([...loops.keys()].map((q) => options.onRelease?.(q)));
      // After the passes ended: the states saved are the last ones this engine folded.
      await running?.snapshotting?.stop();
    },
  };
};

import { backoffDelay, type Backoff, type EventStore, type RecordedEvent, type Subscription } from '@railyard/eventstore';
import { errorFields, type Logger } from '@railyard/observability';
import type { ReadModelStore } from '@railyard/readmodels';

/** What a projector feeds: the queue read models, or any other projection with its own checkpoint (test health). */
export type ProjectionTarget = Pick<ReadModelStore, 'apply' | 'checkpoint'>;

export interface ProjectorOptions {
  eventStore: EventStore;
  readModels: ProjectionTarget;
  logger: Logger;
  /** Largest batch asked of the subscription; one batch is one atomic read-model write. */
  batchSize?: number;
  backoff?: Backoff;
}

export const DEFAULT_BACKOFF: Backoff = { minMs: 100, maxMs: 10_000 };

export interface ProjectorHandle {
  /** Stops subscribing and resolves once the batch in flight (if any) has been applied. */
  stop(): Promise<void>;
}

export const DEFAULT_BATCH_SIZE = 500;

/**
 * Keeps the read models following the event store: subscribes from their checkpoint and applies each
 * batch. Any failure (store, subscription, read models) ends that subscription; after a capped
 * backoff a new one starts from the checkpoint the read models actually hold, so nothing is skipped.
 */
export const runProjector = (options: ProjectorOptions): ProjectorHandle => {
  const { eventStore, readModels, logger } = options;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  let stopped = false;
  let failures = 0;
  let subscription: Subscription | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  // Each subscription gets a fresh token; batches still arriving on one that failed are dropped,
  // because applying them after a failed batch would leave a hole below the checkpoint.
  let current: object = {};
  let inFlight: Promise<void> = Promise.resolve();

  const fail = (token: object, err: unknown): void => {
    if (stopped || token !== current) return;
    current = {};
    const failed = subscription;
    subscription = null;
    void failed?.close().catch(() => undefined);
    failures += 1;
    const delayMs = backoffDelay(failures, options.backoff ?? DEFAULT_BACKOFF);
    logger.error('projection failed; resubscribing from the read-model checkpoint', { ...errorFields(err), failures, delayMs });
    retryTimer = setTimeout(() => void start(), delayMs);
  };

  const start = async (): Promise<void> => {
    retryTimer = null;
    if (stopped) return;
    const token = {};
    current = token;
    try {
      const fromPosition = await readModels.checkpoint();
      if (stopped || token !== current) return;
      logger.info('projector subscribing', { fromPosition: fromPosition?.toString() ?? null, batchSize });
      subscription = eventStore.subscribe({
        fromPosition,
        batchSize,
        onEvents: async (events: RecordedEvent[]) => {
          if (stopped || token !== current) return;
          const applying = readModels.apply(events);
          inFlight = applying.then(
            () => undefined,
            () => undefined,
          );
          try {
            await applying;
            failures = 0;
          } catch (err) {
            fail(token, err);
            // Rethrown so the adapter ends this subscription too; its onError then finds the token stale.
            throw err;
          }
        },
        onError: (err) => fail(token, err),
      });
    } catch (err) {
      fail(token, err);
    }
  };

  void start();

  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      const open = subscription;
      subscription = null;
      await open?.close().catch((err: unknown) => logger.warn('closing the subscription failed', errorFields(err)));
      await inFlight;
      logger.info('projector stopped');
    },
  };
};

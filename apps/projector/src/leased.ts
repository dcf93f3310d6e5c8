import type { Logger } from '@railyard/observability';
import type { RedisLease } from '@railyard/readmodels';
import type { ProjectorHandle } from './run-projector';

export type ProjectorLease = Pick<RedisLease, 'acquire' | 'onLost' | 'release'>;

export interface LeasedProjectorOptions {
  lease: ProjectorLease;
  logger: Logger;
  /** Starts projecting; called each time the lease is won. */
  start: () => ProjectorHandle;
}

export interface LeasedProjectorHandle {
  stop(): Promise<void>;
  /** Settles when the loop has ended after stop(). */
  done: Promise<void>;
}

/**
 * Projects only while holding the lease: a second process waits, and takes over when the holder
 * releases it on shutdown or stops renewing it (crash, partition). Losing the lease stops projecting
 * and goes back to waiting.
 */
export const runLeasedProjector = ({ lease, logger, start }: LeasedProjectorOptions): LeasedProjectorHandle => {
  const abort = new AbortController();
  let wake: (() => void) | null = null;

  const loop = async (): Promise<void> => {
    while (!abort.signal.aborted) {
      logger.info('waiting for the projector lease');
      if (!(await lease.acquire(abort.signal))) break;
      logger.info('projector lease acquired');
      const projector = start();
      let lost = false;
      await new Promise<void>((resolve) => {
        const off = lease.onLost(() => {
          lost = true;
          resolve();
        });
        wake = () => {
          off();
          resolve();
        };
        if (abort.signal.aborted) wake();
      });
      wake = null;
      await projector.stop();
      if (lost) logger.warn('projector lease lost; stopped projecting until it is won again');
    }
    await lease.release();
  };

  const done = loop();
  return {
    done,
    async stop() {
      abort.abort();
      wake?.();
      await done;
    },
  };
};

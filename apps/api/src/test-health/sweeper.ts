import { randomUUID } from 'node:crypto';
import { errorFields, type Logger } from '@railyard/observability';
import type { TestHealthReadModels } from '@railyard/readmodels';
import { repoOfId } from '@railyard/testhealth';
import { startPeriodic } from '../periodic';
import type { EvaluationResult, TestEvaluator } from './evaluator';

export interface SweeperHandle {
  /** One pass over every repository now; resolves with the totals. */
  runOnce(): Promise<EvaluationResult>;
  stop(): Promise<void>;
}

/**
 * Re-evaluates the watched tests of every repository on a timer, so statuses recover (or the 7-day
 * impact shrinks) with time alone. Statuses are computed from the history at the moment of the
 * sweep, never at query time: listing 100,000 tests stays an index read. Each API process sweeps;
 * the evaluation basis in each event makes a second sweeper's events harmless.
 */
export const startSweeper = (options: {
  store: TestHealthReadModels;
  evaluator: TestEvaluator;
  logger: Logger;
  minutes: number;
}): SweeperHandle => {
  const { store, evaluator, logger } = options;
  return startPeriodic({
    minutes: options.minutes,
    pass: async (stopped) => {
      const total = { evaluated: 0, changed: 0 };
      for (const repoId of await store.repoIds()) {
        const repo = repoOfId(repoId);
        if (!repo || stopped()) continue;
        try {
          const r = await evaluator.sweep(repo, { actor: 'test-health-sweep', correlationId: randomUUID() });
          total.evaluated += r.evaluated;
          total.changed += r.changed;
        } catch (err) {
          logger.error('test-health sweep failed for a repository', { repo: repoId, ...errorFields(err) });
        }
      }
      return total;
    },
    onError: (err) => logger.error('test-health sweep failed', errorFields(err)),
  });
};

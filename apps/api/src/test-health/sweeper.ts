import { randomUUID } from 'node:crypto';
import { errorFields, type Logger } from '@railyard/observability';
import type { TestHealthReadModels } from '@railyard/readmodels';
import { repoOfId } from '@railyard/testhealth';
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
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<EvaluationResult> | null = null;
  let stopped = false;

  const pass = async (): Promise<EvaluationResult> => {
    const total = { evaluated: 0, changed: 0 };
    for (const repoId of await store.repoIds()) {
      const repo = repoOfId(repoId);
      if (!repo || stopped) continue;
      try {
        const r = await evaluator.sweep(repo, { actor: 'test-health-sweep', correlationId: randomUUID() });
        total.evaluated += r.evaluated;
        total.changed += r.changed;
      } catch (err) {
        logger.error('test-health sweep failed for a repository', { repo: repoId, ...errorFields(err) });
      }
    }
    return total;
  };

  const runOnce = (): Promise<EvaluationResult> => {
    running ??= pass().finally(() => {
      running = null;
    });
    return running;
  };

  const schedule = () => {
    if (stopped || options.minutes <= 0) return;
    // Jitter, so the API processes of a deployment do not all sweep in the same second.
    const delay = options.minutes * 60_000 * (0.9 + Math.random() * 0.2);
    timer = setTimeout(() => {
      void runOnce().finally(schedule);
    }, delay);
    timer.unref();
  };
  schedule();

  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
};

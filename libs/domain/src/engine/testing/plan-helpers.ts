import type { QueueSettings } from '../../config';
import type { QueueEvent } from '../../events';
import { prSubmitted, queueCreated } from '../../testing/fixtures';
import type { Action } from '../actions';
import type { EngineCommand } from '../commands';
import { BASE_SHA, BASE_TREE } from './engine-fixtures';

/**
 * A queue with `settings` and PRs submitted in that order (PR n at minute n). Flake re-runs are off
 * unless `settings` turns them on: the specs of blame and bisection read one failure as final, and
 * plan-flakes.test.ts specifies the re-runs.
 */
export const queueWith = (settings: Partial<QueueSettings> = {}, prs: number[] = [1, 2, 3]): QueueEvent[] => [
  queueCreated({ settings: { flakeRetries: 0, ...settings } }),
  ...prs.map((n) => prSubmitted(n)),
];

export const rec = (command: EngineCommand): Action => ({ kind: 'record', command });

/** The blame of a PR whose run failed on the fixtures' one required check, `tests`. */
export const blamed = (prNumber: number, testRunId: string): Action =>
  rec({ type: 'FailPr', prNumber, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', detail: 'required status check(s) failed: tests', testRunId });

/**
 * The merge of step `index` of a run (the fixtures name its commits `<run>-c<index>`): the target
 * moves from `before` to that commit, holding `tree`, by compare-and-swap on `onto` (default: before's sha).
 */
export const mergeStep = (
  prNumber: number,
  testRunId: string,
  index: number,
  before: { sha: string; tree: string },
  tree: string,
  onto = before.sha,
): Action => ({ kind: 'merge', prNumber, testRunId, index, before, after: { sha: `${testRunId}-c${index}`, tree }, onto });

const stacked = (numbers: number[]) => numbers.map((n) => ({ number: n, headSha: `sha-${n}`, title: `PR ${n}` }));

/** The start the planner asks for: `tested` on top of `deps`, on the target at `baseSha`. */
export const startOf = (
  tested: number | number[],
  deps: number[] = [],
  o: { bisection?: boolean; baseSha?: string; baseTree?: string } = {},
): Action => {
  const prNumbers = Array.isArray(tested) ? tested : [tested];
  return {
    kind: 'startRun',
    prNumber: prNumbers[0] as number,
    prNumbers,
    stack: stacked([...deps, ...prNumbers]),
    dependentPrs: deps,
    baseSha: o.baseSha ?? BASE_SHA,
    baseTree: o.baseTree ?? BASE_TREE,
    ...(o.bisection ? { bisection: true } : {}),
  };
};

/** `m` minutes after the runs of the fixtures started. */
export const minutesAfter = (m: number, from = '2025-06-01T09:45:00.000Z'): string => new Date(Date.parse(from) + m * 60_000).toISOString();

import type { QueueEvent } from '../events';
import { foldQueue } from '../state';
import { NOW, testContext } from '../testing/decider-spec';
import { at, headShaOf, prSubmitted, queueCreated, queueStateChanged, readiness } from '../testing/fixtures';
import { decide } from '../decide';
import { facts, merged, restarted, runPassed, runStarted, treeWith } from './testing/engine-fixtures';
import { givenEngine, givenQueue } from './testing/engine-spec';
import { mergeStep, queueWith, rec, startOf } from './testing/plan-helpers';

const toParallel = (from: 'running' | 'paused' = 'running', resumeState?: 'paused' | 'draining'): QueueEvent => ({
  type: 'QueueStateChanged',
  data: { from, to: 'switching_modes', pendingMode: 'parallel', ...(resumeState ? { resumeState } : {}), at: at(46) },
});

describe('mode switching (reference trunk §5.5)', () => {
  it('when the mode is changed with a PR in flight, then the queue switches modes and records the state to return to', () => {
    const history = [...queueWith({ concurrency: 2 }, [1, 2]), ...runStarted('r1', 1)];
    const events = decide(foldQueue(history), { type: 'UpdateQueue', settings: { mode: 'parallel' }, state: 'paused' }, testContext());
    expect(events).toEqual([
      {
        type: 'QueueStateChanged',
        data: { from: 'running', to: 'switching_modes', pendingMode: 'parallel', resumeState: 'paused', at: NOW },
      },
    ]);
    expect(foldQueue(events, foldQueue(history))).toMatchObject({
      runState: 'switching_modes',
      pendingMode: 'parallel',
      resumeState: 'paused',
    });
  });

  it('when switching, then the PRs in flight go on and merge, and PRs that never started wait', () => {
    const history = [...queueWith({ concurrency: 3 }, [1, 2, 3]), ...runStarted('r1', 1), toParallel()];
    expect(givenQueue(history).planned(facts())).toEqual([]);
    expect(givenQueue([...history, ...runPassed('r1', 1)]).planned(facts())).toEqual([
      mergeStep(1, 'r1', 0, { sha: 'main-0', tree: 'T' }, treeWith([1])),
    ]);
  });

  it('when switching and a PR restarted while a run behind it still stacks it, then it is tested again so the switch can finish', () => {
    const history = [
      ...queueWith({ concurrency: 3 }, [1, 2, 3]),
      ...runStarted('r1', 1),
      ...runStarted('r2', 2, [1]),
      toParallel(),
      restarted(1, at(47)),
    ];
    const cancelled: QueueEvent = { type: 'TestRunCancelled', data: { testRunId: 'r1', reason: 'TESTS_RESTARTED', at: at(47) } };
    expect(givenQueue([...history, cancelled]).planned(facts())).toEqual([startOf(1)]);
  });

  it('when switching and the only PR in flight restarted, then nothing is in flight any more and the switch completes', () => {
    const history = [...queueWith({ concurrency: 3 }, [1, 2]), ...runStarted('r1', 1), toParallel(), restarted(1, at(47))];
    const cancelled: QueueEvent = { type: 'TestRunCancelled', data: { testRunId: 'r1', reason: 'TESTS_RESTARTED', at: at(47) } };
    expect(givenQueue([...history, cancelled]).planned(facts())).toEqual([rec({ type: 'CompleteModeSwitch' })]);
  });

  it('when the last PR in flight merged, then the switch completes', () => {
    const history = [
      ...queueWith({ concurrency: 3 }, [1, 2]),
      ...runStarted('r1', 1),
      toParallel(),
      ...runPassed('r1', 1),
      merged(1, 'r1'),
    ];
    expect(givenQueue(history).planned(facts({ sha: 'merge-1', tree: treeWith([1]) }))).toEqual([rec({ type: 'CompleteModeSwitch' })]);
  });

  it('when the switch completes, then the mode changes, PRs without targets wait for them, and the queue returns to its state', () => {
    const targets: QueueEvent = {
      type: 'ImpactedTargetsSet',
      data: { prNumber: 3, headSha: headShaOf(3), digest: 'd3', count: 1, all: false, at: at(5) },
    };
    const history = [queueCreated(), prSubmitted(2), targets, prSubmitted(3), toParallel('running', 'paused')];
    givenEngine(history)
      .when({ type: 'CompleteModeSwitch' })
      .then([
        { type: 'QueueConfigUpdated', data: { changes: { mode: 'parallel' }, at: NOW } },
        {
          type: 'PrReadinessChanged',
          data: {
            prNumber: 2,
            readiness: readiness({ requiresImpactedTargets: true }),
            state: 'not_ready',
            reason: 'MERGE_ITEM_NO_LONGER_READY',
            at: NOW,
          },
        },
        {
          type: 'PrReadinessChanged',
          data: {
            prNumber: 3,
            readiness: readiness({ requiresImpactedTargets: true, hasImpactedTargets: true }),
            state: 'pending',
            reason: 'READINESS_UPDATED',
            at: NOW,
          },
        },
        { type: 'QueueStateChanged', data: { from: 'switching_modes', to: 'paused', at: NOW } },
      ]);
  });

  it('when a PR is still in flight, then completing the switch is refused', () => {
    givenEngine([...queueWith({}, [1]), ...runStarted('r1', 1), toParallel()])
      .when({ type: 'CompleteModeSwitch' })
      .thenThrows('PR_NOT_IN_ACTIVE_STATE');
  });

  it('when the queue is not switching, then completing a switch decides nothing', () => {
    givenEngine(queueWith({}, [1]))
      .when({ type: 'CompleteModeSwitch' })
      .then([]);
    givenEngine([queueCreated(), queueStateChanged('running', 'paused')])
      .when({ type: 'CompleteModeSwitch' })
      .then([]);
  });
});

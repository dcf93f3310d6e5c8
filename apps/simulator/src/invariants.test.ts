import {
  afterStep,
  beforeStep,
  evolve,
  foldQueue,
  knownEntries,
  plan,
  stackOf,
  type Action,
  type QueueEvent,
  type QueueState,
} from '@railyard/domain';
import type { CiRun } from './ci-model';
import { InvariantChecker, InvariantViolation, type InvariantCode, type WorldView } from './invariants';
import type { SimPr } from './pr-model';
import type { Planner } from './simulator';
import { simulate } from './simulator';
import { smallWorkload } from './testing';
import { World } from './world';

const violation = async (fn: () => unknown): Promise<InvariantViolation> => {
  try {
    await fn();
  } catch (err) {
    if (err instanceof InvariantViolation) return err;
    throw err;
  }
  throw new Error('expected an invariant violation, none was raised');
};

const expectViolation = async (code: InvariantCode, fn: () => unknown): Promise<void> => expect((await violation(fn)).code).toBe(code);

/** The real planner, except where `tamper` returns actions of its own. */
const tampered =
  (tamper: (s: QueueState, actions: Action[], facts: Parameters<Planner>[2]) => Action[] | undefined): Planner =>
  (s, now, facts) => {
    const actions = plan(s, now, facts);
    return tamper(s, actions, facts) ?? actions;
  };

const entriesIn = (s: QueueState, state: string) => [...s.entries.values()].filter((e) => e.state === state);

describe('invariants, planted through a broken planner', () => {
  it('when the real planner runs a queue, then no invariant breaks', async () => {
    await expect(simulate(smallWorkload({ failureRate: 0.2, flakeRate: 0.1, queue: { concurrency: 4 } }))).resolves.toBeDefined();
  });

  it('when PRs go on past a failed PR whose re-run then passes behind them (queue defaults, flaky CI), then no invariant breaks', async () => {
    const flaky = smallWorkload({ prs: 120, failureRate: 0.1, flakeRate: 0.2, queue: { concurrency: 4 } });
    const result = await simulate(flaky);
    expect(result.restarts['FLAKE_RETRY_PASSED']).toBeGreaterThan(0);
  });

  it('when a planner merges a PR that never had a test run, then MERGED_UNTESTED', async () => {
    const planner = tampered((s, _a, facts) => {
      const first = entriesIn(s, 'pending')[0];
      if (!first || !facts.target) return undefined;
      return [
        {
          kind: 'merge',
          prNumber: first.prNumber,
          testRunId: 'no-such-run',
          index: 0,
          before: facts.target,
          after: { sha: 'x', tree: 'y' },
          onto: facts.target.sha,
        },
      ];
    });
    await expectViolation('MERGED_UNTESTED', () => simulate(smallWorkload(), { planner }));
  });

  it('when a planner merges a PR whose run failed, then MERGED_UNTESTED', async () => {
    const planner = tampered((s, _a, facts) => {
      const suspect = entriesIn(s, 'pending_failure')[0];
      const run = suspect?.testRunId === undefined ? undefined : s.runs.get(suspect.testRunId);
      if (!suspect || !run || !facts.target) return undefined;
      const index = stackOf(run).indexOf(suspect.prNumber);
      const before = beforeStep(run, index);
      const after = afterStep(run, index);
      if (!before || !after || before.tree !== facts.target.tree) return undefined;
      return [{ kind: 'merge', prNumber: suspect.prNumber, testRunId: run.testRunId, index, before, after, onto: facts.target.sha }];
    });
    await expectViolation('MERGED_UNTESTED', () => simulate(smallWorkload({ failureRate: 0.5 }), { planner }));
  });

  it('when a planner records a merge the target branch does not hold, then MERGE_NOT_ON_TARGET', async () => {
    const planner = tampered((s) => {
      const first = entriesIn(s, 'pending')[0];
      return first ? [{ kind: 'completeMerge', prNumber: first.prNumber, mergeSha: 'nowhere', reason: 'MERGE_GRAPH_MERGE' }] : undefined;
    });
    await expectViolation('MERGE_NOT_ON_TARGET', () => simulate(smallWorkload(), { planner }));
  });

  it('when a planner tests the newest PR alone and merges it first, then ORDER_BROKEN', async () => {
    const planner = tampered((s, actions, facts) => {
      if (!actions.some((a) => a.kind === 'startRun') || !facts.target) return undefined;
      const waiting = entriesIn(s, 'pending');
      const newest = waiting.at(-1);
      if (waiting.length < 2 || !newest) return [];
      const stack = [{ number: newest.prNumber, headSha: newest.headSha, title: newest.title }];
      return [
        {
          kind: 'startRun',
          prNumber: newest.prNumber,
          prNumbers: [newest.prNumber],
          stack,
          dependentPrs: [],
          baseSha: facts.target.sha,
          baseTree: facts.target.tree,
        },
      ];
    });
    await expectViolation('ORDER_BROKEN', () => simulate(smallWorkload({ arrivalsPerHour: 600 }), { planner }));
  });

  it('when a planner merges a stacked PR before the PR under it, then TREE_NOT_TESTED', async () => {
    const planner = tampered((s, actions, facts) => {
      const merge = actions.find((a) => a.kind === 'merge');
      if (!merge || !facts.target) return undefined;
      const behind = entriesIn(s, 'tests_passed').find((e) => e.prNumber !== merge.prNumber);
      const run = behind?.testRunId === undefined ? undefined : s.runs.get(behind.testRunId);
      // Hold the head's merge until a PR stacked on it has passed too.
      if (!behind || !run) return [];
      const index = stackOf(run).indexOf(behind.prNumber);
      const after = afterStep(run, index);
      if (index < 1 || !after) return undefined;
      return [
        { kind: 'merge', prNumber: behind.prNumber, testRunId: run.testRunId, index, before: facts.target, after, onto: facts.target.sha },
      ];
    });
    await expectViolation('TREE_NOT_TESTED', () =>
      simulate(smallWorkload({ arrivalsPerHour: 600, queue: { concurrency: 4 } }), { planner }),
    );
  });

  it('when a planner fails a PR whose run passed and nothing flakes, then INNOCENT_BLAMED', async () => {
    const planner = tampered((s) => {
      const passed = entriesIn(s, 'tests_passed')[0];
      return passed
        ? [
            {
              kind: 'record',
              command: { type: 'FailPr', prNumber: passed.prNumber, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', detail: 'planted' },
            },
          ]
        : undefined;
    });
    await expectViolation('INNOCENT_BLAMED', () => simulate(smallWorkload(), { planner }));
  });

  it('when a planner starts more runs than the concurrency allows, then BUDGET_EXCEEDED', async () => {
    const planner: Planner = (s, now, facts) => plan({ ...s, settings: { ...s.settings, concurrency: 6 } }, now, facts);
    await expectViolation('BUDGET_EXCEEDED', () =>
      simulate(smallWorkload({ arrivalsPerHour: 600, queue: { concurrency: 2 } }), { planner }),
    );
  });

  it('when a planner never stops acting at one instant, then LIVELOCK', async () => {
    // A new branch each round: the driver leaves swept branches to the pass's end, and one already left is no new action.
    let n = 0;
    await expectViolation('LIVELOCK', () =>
      simulate(smallWorkload(), { planner: () => [{ kind: 'deleteBranch', branch: `railyard-merge/pr-1/x${++n}` }] }),
    );
  });

  it('when a planner asks for the same branch deletion over and over at one instant, then the pass settles: it did nothing new', async () => {
    await expectViolation('STALLED', () =>
      simulate(smallWorkload(), { planner: () => [{ kind: 'deleteBranch', branch: 'railyard-merge/pr-1/x' }] }),
    );
  });

  it('when a planner does nothing while PRs wait, then STALLED', async () => {
    await expectViolation('STALLED', () => simulate(smallWorkload(), { planner: () => [] }));
  });

  it('when a planner builds a run on a commit the target never was, then UNKNOWN_BASE', async () => {
    const planner = tampered((_s, actions) => {
      const start = actions.find((a) => a.kind === 'startRun');
      return start ? [{ ...start, baseSha: 'somewhere-else' }] : undefined;
    });
    await expectViolation('UNKNOWN_BASE', () => simulate(smallWorkload(), { planner }));
  });

  it('when a planner keeps restarting PRs that passed, so that none ever leaves, then STALLED', async () => {
    const planner = tampered((s) => {
      const passed = entriesIn(s, 'tests_passed');
      return passed.length > 0
        ? passed.map((e) => ({
            kind: 'record',
            command: { type: 'RestartTests', prNumber: e.prNumber, reason: 'TESTS_RESTARTED_BY_API_REQUEST' },
          }))
        : undefined;
    });
    const err = await violation(() => simulate(smallWorkload(), { planner }));
    expect(err.code).toBe('STALLED');
    expect(err.message).toContain('none merged or failed');
  });

  it('when a planner stacks a PR already on the target, then STACKED_MERGED_PR', async () => {
    const merged: number[] = [];
    const planner: Planner = (s, now, facts) => {
      for (const e of knownEntries(s)) if (e.state === 'merged' && !merged.includes(e.prNumber)) merged.push(e.prNumber);
      const actions = plan(s, now, facts);
      const done = merged[0];
      return actions.map((a) =>
        a.kind === 'startRun' && done !== undefined
          ? { ...a, stack: [{ number: done, headSha: `head-${done}`, title: '' }, ...a.stack], dependentPrs: [done, ...a.dependentPrs] }
          : a,
      );
    };
    await expectViolation('STACKED_MERGED_PR', () => simulate(smallWorkload(), { planner }));
  });
});

const at = (m: number): string => new Date(Date.UTC(2025, 0, 6, 0, m)).toISOString();
const submitted = (prNumber: number): QueueEvent => ({
  type: 'PrSubmitted',
  data: {
    entryId: `e-${prNumber}`,
    prNumber,
    title: `PR ${prNumber}`,
    headSha: `head-${prNumber}`,
    author: 'sim',
    baseBranch: 'main',
    priorityValue: 100,
    priorityName: 'medium',
    noBatch: false,
    readiness: { requiresImpactedTargets: false, doesBaseBranchMatch: true, hasImpactedTargets: false, mergeability: 'mergeable' },
    state: 'pending',
    reason: 'API_REQUESTED',
    at: at(prNumber),
  },
});

const stateWith = (...events: QueueEvent[]): QueueState => {
  const w = new World(smallWorkload());
  w.createQueue();
  return foldQueue(events, w.state);
};

const view = (o: Partial<WorldView> & { runs?: CiRun[]; prs?: SimPr[] } = {}): WorldView => ({
  now: 0,
  mode: 'single',
  mergeLog: [],
  holds: (n) => (o.mergeLog ?? []).includes(n),
  ciRun: (id) => o.runs?.find((r) => r.testRunId === id),
  pr: (n) => o.prs?.find((p) => p.number === n),
  ...o,
});

const passedRun = (stack: number[]): CiRun => ({
  testRunId: 'r1',
  testBranchSha: 'r1-c0',
  stack,
  tested: stack.slice(-1),
  bisection: false,
  baseVersion: 0,
  startedAt: 0,
  endsAt: 1,
  outcome: 'success',
  flaked: false,
  missed: false,
  failing: [],
  reported: true,
  ended: true,
});
const pr = (number: number, bad = false): SimPr => ({ number, headSha: `head-${number}`, bad, areas: [], arrivedAt: 0 });
const checker = (o: { misses?: boolean; flakes?: boolean } = {}) =>
  new InvariantChecker({ missesPossible: o.misses ?? false, flakesPossible: o.flakes ?? false, directMergeAllowed: false });
const mergedEvent = (prNumber: number): QueueEvent => ({
  type: 'PrMerged',
  data: { prNumber, mergeSha: 'm', testRunId: 'r1', reason: 'MERGE_GRAPH_MERGE', at: at(40) },
});

describe('InvariantChecker, fed directly', () => {
  it('when a bad PR merges on a run that passed and no test misses breakages, then BAD_PR_MERGED', async () => {
    const s = stateWith(submitted(1));
    await expectViolation('BAD_PR_MERGED', () =>
      checker().onEvent(s, mergedEvent(1), view({ mergeLog: [1], runs: [passedRun([1])], prs: [pr(1, true)] })),
    );
  });

  it('when misses are modelled, then a bad merge is counted, not refused', async () => {
    const s = stateWith(submitted(1));
    expect(() =>
      checker({ misses: true }).onEvent(s, mergedEvent(1), view({ mergeLog: [1], runs: [passedRun([1])], prs: [pr(1, true)] })),
    ).not.toThrow();
  });

  it('when a merged PR is moved again, then TERMINAL_STATE_CHANGED', async () => {
    const s = stateWith(submitted(1), mergedEvent(1));
    const restart: QueueEvent = { type: 'TestsRestarted', data: { prNumber: 1, reason: 'TESTS_RESTARTED_BY_API_REQUEST', at: at(50) } };
    await expectViolation('TERMINAL_STATE_CHANGED', () => checker().onEvent(s, restart, view({ prs: [pr(1)] })));
  });

  it('when the simulation ends with a PR still queued, then PR_LOST', async () => {
    const s = stateWith(submitted(1), submitted(2), mergedEvent(1));
    await expectViolation('PR_LOST', () => checker().atEnd(s, view(), 2, false));
  });

  it('when the simulation was cut at its time limit, then PRs still queued are allowed', async () => {
    const s = stateWith(submitted(1));
    expect(() => checker().atEnd(s, view(), 1, true)).not.toThrow();
  });

  it('when the log counts more merges than the target holds, then TARGET_OUT_OF_SYNC', async () => {
    const s = stateWith(submitted(1));
    await expectViolation('TARGET_OUT_OF_SYNC', () => checker().atQuiescence(s, view({ mergeLog: [] }), 1));
  });

  it('when parallel lanes merge in between, then only a PR overlapping the merged one and missing from its run breaks the tree rule', async () => {
    const s = stateWith(submitted(1), submitted(2), submitted(3));
    const laneA = { ...pr(1), areas: [0] };
    const laneB = { ...pr(2), areas: [1] };
    const laneA2 = { ...pr(3), areas: [0] };
    const run = passedRun([3]);
    const base = { mode: 'parallel' as const, runs: [run] };
    const ok = view({ ...base, mergeLog: [2, 3], prs: [laneA, laneB, laneA2] });
    expect(() => checker().onEvent(evolve(stateWith(submitted(2), submitted(3)), mergedEvent(2)), mergedEvent(3), ok)).not.toThrow();
    const bad = view({ ...base, mergeLog: [1, 3], prs: [laneA, laneB, laneA2] });
    await expectViolation('TREE_NOT_TESTED', () => checker().onEvent(evolve(s, mergedEvent(1)), mergedEvent(3), bad));
  });
});

import { DEFAULT_SETTINGS } from '../config';
import { entryOf, foldQueue } from '../state';
import { at, prCancelled, prSubmitted, queueCreated, queueStateChanged, readiness } from '../testing/fixtures';
import { failed, merged, runFailed, runPassed, runStarted, statusReported } from '../engine/testing/engine-fixtures';
import type { QueueEvent } from '../events';
import { explainFromState } from './of-state';
import { explainPr, explainQueue } from './explain';
import type { ExplainRun, ExplainedPr } from './types';

const explain = (events: QueueEvent[], prNumber: number) => {
  const e = explainFromState(foldQueue(events), prNumber);
  if (!e) throw new Error(`no entry ${prNumber}`);
  return e;
};

const pushed: QueueEvent = { type: 'PrCancelled', data: { prNumber: 1, reason: 'PR_PUSHED_TO', at: at(41) } };

describe('explainPr', () => {
  it('when a PR fails because a check failed, then the reason names the check and the run, and the last run lists the failed check with its log', () => {
    const logged: QueueEvent = {
      type: 'TestRunStatusReported',
      data: { testRunId: 'r1', context: 'tests', state: 'failure', url: 'https://ry.example/ci/logs/r1/tests', at: at(46) },
    };
    const run: ExplainRun = {
      testRunId: 'r1',
      status: 'failed',
      testBranch: 'railyard-merge/pr-1/r1',
      requiredStatuses: ['tests'],
      statuses: [{ context: 'tests', state: 'failure', url: 'https://ry.example/ci/logs/r1/tests' }],
      failedContexts: ['tests'],
    };
    const state = foldQueue([queueCreated(), prSubmitted(1), ...runStarted('r1', 1), logged, ...runFailed('r1', 1), failed(1, 'r1')]);
    const pr = entryOf(state, 1)!;
    const e = explainPr({ pr, queue: { state: 'running', settings: DEFAULT_SETTINGS }, ahead: { count: 0, first: [] }, run });
    expect(e.stateReason).toMatchObject({ code: 'TEST_RUN_REQUIRED_STATUS_FAILED', testRunId: 'r1' });
    expect(e.stateReason.message).toBe('failed because check `tests` failed on run r1: tests failed');
    expect(e.waitingOn).toEqual([]);
    expect(e.lastTestRun).toEqual({
      id: 'r1',
      status: 'failed',
      testBranch: 'railyard-merge/pr-1/r1',
      checks: [{ name: 'tests', state: 'failure', url: 'https://ry.example/ci/logs/r1/tests' }],
      failedChecks: [{ name: 'tests', state: 'failure', url: 'https://ry.example/ci/logs/r1/tests' }],
    });
  });

  it('when a PR changed .railyard.yml, then its explanation says its run used the base branch’s configuration instead', () => {
    const [started, ...rest] = runStarted('r1', 1) as [Extract<QueueEvent, { type: 'TestRunStarted' }>, ...QueueEvent[]];
    const withNote: QueueEvent = { ...started, data: { ...started.data, configNotUsed: [{ prNumber: 1, files: ['.railyard.yml'] }] } };
    const e = explain([queueCreated(), prSubmitted(1), withNote, ...rest], 1);
    expect(e.notes).toEqual([
      {
        kind: 'config_not_used',
        message: "this PR changes .railyard.yml; run r1 tested it with main's configuration (the change takes effect once it has merged)",
        files: ['.railyard.yml'],
      },
    ]);
    expect(explain([queueCreated(), prSubmitted(1), ...runStarted('r1', 1)], 1).notes).toBeUndefined();
  });

  it('when a status on its run did not count, then its explanation says whose it was and why', () => {
    const forged: QueueEvent = {
      type: 'TestRunStatusNotCounted',
      data: { testRunId: 'r1', context: 'tests', state: 'success', reporter: 'token:ci', why: 'LOCAL_CI_ONLY', at: at(46) },
    };
    const e = explain([queueCreated(), prSubmitted(1), ...runStarted('r1', 1), forged], 1);
    expect(e.notes).toEqual([
      {
        kind: 'status_not_counted',
        message: '`tests` success from token "ci" on run r1 was not counted: only the local CI reports `tests`',
        checks: ['tests'],
      },
    ]);
    expect(e.lastTestRun?.checks).toEqual([]);
  });

  it('when the write side has dropped the failed run, then the failure still names the checks of its pending failure', () => {
    const e = explain([queueCreated(), prSubmitted(1), ...runStarted('r1', 1), ...runFailed('r1', 1), failed(1, 'r1')], 1);
    expect(e.stateReason.message).toContain('check `tests` failed on run r1');
    expect(e.lastTestRun).toBeUndefined();
  });

  it('when the head moved, then the cancellation says so; a cancellation through the API says that', () => {
    expect(explain([queueCreated(), prSubmitted(1), pushed], 1).stateReason).toMatchObject({
      code: 'PR_PUSHED_TO',
      message: 'cancelled because the head moved: a new commit was pushed to the PR',
    });
    expect(explain([queueCreated(), prSubmitted(1), prCancelled(1)], 1).stateReason.message).toBe('cancelled through the API');
  });

  it('when a PR is testing, then it waits on the required statuses not yet reported, by name', () => {
    const events = [queueCreated(), prSubmitted(1), ...runStarted('r1', 1, [], { requiredStatuses: ['tests', 'lint'] })];
    expect(explain([...events, statusReported('r1', 'lint', 'success')], 1).waitingOn).toEqual([
      { kind: 'required_statuses', message: 'required statuses missing on run r1: tests', checks: ['tests'] },
    ]);
    expect(explain(events, 1).stateReason.message).toBe('testing on run r1 (branch railyard-merge/pr-1/r1)');
  });

  it('when PRs are ahead, then a pending PR waits on them by number; when the queue is paused, then on the queue too', () => {
    const events = [queueCreated(), prSubmitted(1), prSubmitted(2), prSubmitted(3)];
    expect(explain(events, 3).waitingOn).toEqual([
      { kind: 'prs_ahead', message: '2 PR(s) ahead must settle first: #1, #2', prNumbers: [1, 2] },
    ]);
    expect(explain([...events, queueStateChanged('running', 'paused')], 1).waitingOn).toEqual([
      { kind: 'queue_paused', message: 'the queue is paused: an admin must resume it' },
    ]);
  });

  it('when a PR is not ready, then it waits on the mergeability and the impacted targets it lacks', () => {
    const notReady = prSubmitted(1, {
      state: 'not_ready',
      reason: 'API_REQUESTED',
      readiness: readiness({ mergeability: 'unspecified', requiresImpactedTargets: true }),
    });
    expect(explain([queueCreated(), notReady], 1).waitingOn.map((w) => w.kind)).toEqual(['mergeability', 'impacted_targets']);
    expect(explain([queueCreated(), notReady], 1).waitingOn[1]?.message).toBe('impacted targets not uploaded for head sha-1');
  });

  it('when a PR of unknown mergeability is behind the first ones of the queue, then it says it was not asked at once and when it will be', () => {
    const waiting = Array.from({ length: 9 }, (_, i) =>
      prSubmitted(i + 1, { state: 'not_ready', readiness: readiness({ mergeability: 'unspecified' }) }),
    );
    const events = [queueCreated(), ...waiting];
    expect(explain(events, 8).waitingOn[0]?.message).toBe(
      'mergeability unknown: the code host has not worked out whether the PR merges cleanly',
    );
    expect(explain(events, 9).waitingOn[0]).toEqual({
      kind: 'mergeability',
      message:
        'mergeability unknown: not asked at once, as 8 PR(s) are ahead; the engine asks the code host when the PR is among the first 8 of the queue, or earlier at its background rate',
    });
  });

  it('when a PR passed and merged, then the sentences name the run', () => {
    const passed = [queueCreated(), prSubmitted(1), ...runStarted('r1', 1), ...runPassed('r1', 1)];
    expect(explain(passed, 1)).toMatchObject({
      stateReason: { code: 'TEST_RUN_PASSED', message: 'tests passed on run r1' },
      waitingOn: [{ kind: 'merge' }],
    });
    expect(explain([...passed, merged(1, 'r1')], 1).stateReason.message).toBe('merged after run r1 passed');
  });
});

describe('explainPr after a flake re-run', () => {
  it('when a failed run was re-run on the same commit and passed, then the sentence says it passed as a flake', () => {
    const events: QueueEvent[] = [
      queueCreated(),
      prSubmitted(1),
      ...runStarted('r1', 1),
      ...runFailed('r1', 1),
      { type: 'TestsRestarted', data: { prNumber: 1, reason: 'FLAKE_RETRY', at: at(48) } },
      { type: 'PrTestsPassed', data: { prNumber: 1, testRunId: 'r2', reason: 'FLAKE_RETRIED', at: at(50) } },
    ];
    expect(explain(events, 1).stateReason).toMatchObject({
      code: 'FLAKE_RETRIED',
      message: 'passed on a re-run of its failed run on the same commit (a flake) on run r2',
    });
    expect(explain(events.slice(0, -1), 1).stateReason.message).toBe(
      'queued: re-run on the same commit because its failure may be a flake',
    );
  });
});

describe('explainQueue', () => {
  it('when a queue is explained in one pass, then each PR sees exactly the active PRs before it', () => {
    const pr = (prNumber: number, state: ExplainedPr['state']): ExplainedPr => ({
      prNumber,
      state,
      headSha: `s${prNumber}`,
      readiness: readiness(),
      stateReason: { code: 'API_REQUESTED' },
    });
    const prs = [
      pr(1, 'testing'),
      pr(2, 'pending'),
      pr(3, 'pending'),
      pr(4, 'pending'),
      pr(5, 'pending'),
      pr(6, 'pending'),
      pr(7, 'pending'),
    ];
    const out = explainQueue({ state: 'running', settings: DEFAULT_SETTINGS }, prs, () => undefined);
    expect(out[1]?.waitingOn).toEqual([{ kind: 'prs_ahead', message: '1 PR(s) ahead must settle first: #1', prNumbers: [1] }]);
    expect(out[6]?.waitingOn[0]?.message).toBe('6 PR(s) ahead must settle first: #1, #2, #3, #4, #5 and 1 more');
  });
});

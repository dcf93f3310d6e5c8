import type { QueueEvent } from '../events';
import { at, prSubmitted, queueCreated } from '../testing/fixtures';
import type { Action } from './actions';
import type { EngineCommand } from './commands';
import { MAX_INFRASTRUCTURE_RETRIES, infrastructureRetryDelayMs } from './phases/infrastructure';
import { facts, runStarted } from './testing/engine-fixtures';
import { givenEngine, givenQueue } from './testing/engine-spec';

const rec = (command: EngineCommand): Action => ({ kind: 'record', command });
const later = (ms: number, from = at(46)): string => new Date(Date.parse(from) + ms).toISOString();

const running: QueueEvent[] = [queueCreated({ settings: { testingTimeoutMinutes: 60 } }), prSubmitted(1), ...runStarted('r1', 1)];

const infraError = (when = at(46), code = 'CI_CHECK_NOT_STARTED'): QueueEvent => ({
  type: 'TestRunStatusReported',
  data: {
    testRunId: 'r1',
    context: 'tests',
    state: 'error',
    url: 'u',
    infrastructureError: { code, message: 'could not start' },
    at: when,
  },
});
const retried = (attempt: number, when: string): QueueEvent => ({
  type: 'TestRunInfrastructureRetried',
  data: { testRunId: 'r1', contexts: ['tests'], code: 'CI_CHECK_NOT_STARTED', attempt, at: when },
});

/** `n` rounds of "error, then retried": the history of a run whose check could not start n times. */
const failedTimes = (n: number): QueueEvent[] => {
  const out: QueueEvent[] = [];
  let when = at(46);
  for (let i = 0; i < n; i++) {
    out.push(infraError(when));
    when = later(infrastructureRetryDelayMs(i), when);
    out.push(retried(i + 1, when));
  }
  out.push(infraError(when));
  return out;
};

describe('plan: infrastructure errors are never blamed on a PR', () => {
  it('when CI says a required status is an infrastructure error, then it is recorded as such', () => {
    const reported = facts({
      statuses: [
        ['r1-c0', [{ context: 'tests', state: 'error', url: 'u', infrastructureError: { code: 'CI_CHECKOUT_LOST', message: 'gone' } }]],
      ],
    });
    expect(givenQueue(running).planned(reported)).toEqual([
      rec({
        type: 'ReportTestStatus',
        testRunId: 'r1',
        context: 'tests',
        state: 'error',
        url: 'u',
        infrastructureError: { code: 'CI_CHECKOUT_LOST', message: 'gone' },
      }),
    ]);
  });

  it('when a required status is an infrastructure error, then the run does not fail but waits out the backoff, then retries the check', () => {
    const history = [...running, infraError()];
    expect(givenQueue(history).planned(facts(), later(infrastructureRetryDelayMs(0) - 1))).toEqual([]);
    expect(givenQueue(history).planned(facts(), later(infrastructureRetryDelayMs(0)))).toEqual([
      rec({ type: 'RetryInfrastructureError', testRunId: 'r1', contexts: ['tests'], code: 'CI_CHECK_NOT_STARTED' }),
    ]);
  });

  it('when the retried check passes, then the run passes', () => {
    const history = [
      ...running,
      infraError(),
      retried(1, later(1000)),
      { type: 'TestRunStatusReported', data: { testRunId: 'r1', context: 'tests', state: 'success', at: later(5000) } } as QueueEvent,
    ];
    expect(givenQueue(history).planned(facts(), later(6000))).toEqual([
      rec({ type: 'CompleteTestRun', testRunId: 'r1', outcome: 'passed' }),
    ]);
  });

  it('when the backoff doubles with every retry, then each retry waits longer than the one before', () => {
    const delays = Array.from({ length: MAX_INFRASTRUCTURE_RETRIES }, (_, i) => infrastructureRetryDelayMs(i));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000]);
    const history = [...running, ...failedTimes(2)];
    const lastError = (history[history.length - 1] as { data: { at: string } }).data.at;
    expect(givenQueue(history).planned(facts(), later(3999, lastError))).toEqual([]);
    expect(givenQueue(history).planned(facts(), later(4000, lastError))).toEqual([
      rec({ type: 'RetryInfrastructureError', testRunId: 'r1', contexts: ['tests'], code: 'CI_CHECK_NOT_STARTED' }),
    ]);
  });

  it('when every retry is used up, then the run is reported stuck, once, and neither fails nor times out', () => {
    const history = [...running, ...failedTimes(MAX_INFRASTRUCTURE_RETRIES)];
    expect(givenQueue(history).planned(facts(), later(120_000))).toEqual([
      rec({
        type: 'ReportRunStuck',
        testRunId: 'r1',
        code: 'CI_CHECK_NOT_STARTED',
        detail: `tests: could not start (still failing after ${MAX_INFRASTRUCTURE_RETRIES} retries)`,
      }),
    ]);
    const stuck: QueueEvent = {
      type: 'TestRunStuck',
      data: { testRunId: 'r1', reason: 'INFRASTRUCTURE_RETRIES_EXHAUSTED', code: 'CI_CHECK_NOT_STARTED', detail: 'd', at: later(60_000) },
    };
    // Hours later, past the 60-minute testing timeout: still no failure, no timeout, no retry.
    expect(givenQueue([...history, stuck]).planned(facts(), later(5 * 3_600_000))).toEqual([]);
    const state = givenQueue([...history, stuck]).state;
    expect(state.entries.get(1)?.state).toBe('testing');
  });

  it('when a plain error (no infrastructure error) is reported, then the run still fails', () => {
    const history = [
      ...running,
      { type: 'TestRunStatusReported', data: { testRunId: 'r1', context: 'tests', state: 'error', at: at(46) } } as QueueEvent,
    ];
    expect(givenQueue(history).planned(facts(), at(47))).toEqual([
      rec({ type: 'CompleteTestRun', testRunId: 'r1', outcome: 'failed', failedContexts: ['tests'] }),
    ]);
  });
});

describe('decideEngine: infrastructure retries', () => {
  it('when a retry is asked for a context in an infrastructure error, then it is recorded with the next attempt number', () => {
    givenEngine([...running, infraError()])
      .when({ type: 'RetryInfrastructureError', testRunId: 'r1', contexts: ['tests', 'lint'], code: 'CI_CHECK_NOT_STARTED' })
      .then([
        {
          type: 'TestRunInfrastructureRetried',
          data: { testRunId: 'r1', contexts: ['tests'], code: 'CI_CHECK_NOT_STARTED', attempt: 1, at: expect.any(String) as string },
        },
      ]);
  });

  it('when the retry was already recorded (the status is pending again), then nothing is recorded twice', () => {
    givenEngine([...running, infraError(), retried(1, later(1000))])
      .when({ type: 'RetryInfrastructureError', testRunId: 'r1', contexts: ['tests'], code: 'CI_CHECK_NOT_STARTED' })
      .then([]);
  });

  it('when the run is already stuck, then being stuck is not recorded again', () => {
    const stuck: QueueEvent = {
      type: 'TestRunStuck',
      data: { testRunId: 'r1', reason: 'INFRASTRUCTURE_RETRIES_EXHAUSTED', code: 'CI_CHECK_NOT_STARTED', detail: 'd', at: later(1) },
    };
    givenEngine([...running, infraError(), stuck])
      .when({ type: 'ReportRunStuck', testRunId: 'r1', code: 'CI_CHECK_NOT_STARTED', detail: 'd' })
      .then([]);
  });

  it('when a run whose status is an infrastructure error is asked to pass, then it is refused', () => {
    givenEngine([...running, infraError()])
      .when({ type: 'CompleteTestRun', testRunId: 'r1', outcome: 'passed' })
      .thenThrows('INVALID_ARGUMENT');
  });
});

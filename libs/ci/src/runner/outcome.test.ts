import { infrastructureDescription, infrastructureErrorOf, statusOf, type CheckOutcome } from './outcome';

describe('infrastructure errors in commit statuses', () => {
  it('when an infrastructure error is written as a description, then it reads back as the same code and message', () => {
    const description = infrastructureDescription({ code: 'CI_CHECKOUT_FAILED', message: 'no checkout of 9c1f00000000' });
    expect(description).toBe('infrastructure error CI_CHECKOUT_FAILED: no checkout of 9c1f00000000');
    expect(infrastructureErrorOf({ state: 'error', description })).toEqual({
      code: 'CI_CHECKOUT_FAILED',
      message: 'no checkout of 9c1f00000000',
    });
  });

  it.each([
    ['a failure of the check', { state: 'failure', description: 'exit code 1' }],
    ['a timeout', { state: 'error', description: 'timed out after 5 min; process tree killed' }],
    ['a success carrying the words', { state: 'success', description: 'infrastructure error CI_CHECKOUT_LOST: x' }],
    ['an unknown code', { state: 'error', description: 'infrastructure error CI_MADE_UP: x' }],
    ['no description', { state: 'error' }],
  ])('when the status is %s, then it is no infrastructure error', (_label, status) => {
    expect(infrastructureErrorOf(status)).toBeUndefined();
  });

  it('when the message is long, then the description stays within the store’s 1024 characters', () => {
    expect(infrastructureDescription({ code: 'CI_RUNNER_ERROR', message: 'x'.repeat(5000) })).toHaveLength(1024);
  });
});

describe('statusOf', () => {
  it.each<[CheckOutcome, string, string]>([
    [{ kind: 'passed', seconds: 3.2 }, 'success', 'passed in 3.2s'],
    [{ kind: 'failed', exitCode: 1, signal: null }, 'failure', 'exit code 1'],
    [{ kind: 'failed', exitCode: null, signal: 'SIGSEGV' }, 'failure', 'killed by SIGSEGV'],
    [
      {
        kind: 'failed',
        exitCode: null,
        signal: 'SIGKILL',
        limit: { name: 'processes', reason: 'reached its limit of 64 processes (RAILYARD_CI_MAX_PROCESSES)' },
      },
      'failure',
      'stopped at a limit: reached its limit of 64 processes (RAILYARD_CI_MAX_PROCESSES)',
    ],
    [{ kind: 'timed_out', minutes: 30, started: true }, 'error', 'timed out after 30 min; process tree killed'],
    [{ kind: 'cancelled', started: false }, 'error', 'cancelled before it started'],
    [{ kind: 'infrastructure', code: 'CI_CHECKOUT_LOST', message: 'gone' }, 'error', 'infrastructure error CI_CHECKOUT_LOST: gone'],
  ])('when the outcome is %j, then the status is %s with "%s"', (outcome, state, description) => {
    expect(statusOf(outcome)).toEqual({ state, description });
  });

  it('when the outcome is anything but a failed command, then the status is never `failure`', () => {
    const others: CheckOutcome[] = [
      { kind: 'timed_out', minutes: 1, started: false },
      { kind: 'cancelled', started: true },
      { kind: 'infrastructure', code: 'CI_SANDBOX_UNAVAILABLE', message: 'x' },
    ];
    expect(others.map((o) => statusOf(o).state)).toEqual(['error', 'error', 'error']);
  });
});

import { infrastructureDescription, infrastructureErrorOf } from './outcome';

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

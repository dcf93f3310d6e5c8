import { commitStateOf, evaluateRequiredStatuses, outcomeOfState } from './status-outcome';

describe('outcomeOfState', () => {
  it.each([
    ['success', 'passed'],
    ['SUCCESS', 'passed'],
    ['failure', 'failed'],
    ['ERROR', 'failed'],
    ['timed_out', 'failed'],
    ['CANCELLED', 'failed'],
    ['pending', 'pending'],
    ['QUEUED', 'pending'],
    ['in_progress', 'pending'],
    ['NEUTRAL', 'pending'],
    ['action_required', 'pending'],
    ['STALE', 'pending'],
    ['skipped', 'pending'],
    ['something new', 'pending'],
  ])('when a status says %s, then it counts as %s', (state, outcome) => {
    expect(outcomeOfState(state)).toBe(outcome);
  });
});

describe('commitStateOf', () => {
  it('when given a commit state in any case, then it answers it in lower case, else undefined', () => {
    expect(commitStateOf(' Success ')).toBe('success');
    expect(commitStateOf('ERROR')).toBe('error');
    expect(commitStateOf('neutral')).toBeUndefined();
  });
});

describe('evaluateRequiredStatuses', () => {
  const s = (context: string, state: string) => ({ context, state });

  it('when every required context passed, then the run passed, whatever else reported', () => {
    expect(evaluateRequiredStatuses(['build', 'test'], [s('build', 'success'), s('test', 'SUCCESS'), s('lint', 'failure')])).toEqual({
      outcome: 'passed',
      failedContexts: [],
      pendingContexts: [],
    });
  });

  it('when one required context failed, then the run failed at once, naming it, even with others pending', () => {
    expect(evaluateRequiredStatuses(['build', 'test', 'e2e'], [s('build', 'pending'), s('test', 'error')])).toEqual({
      outcome: 'failed',
      failedContexts: ['test'],
      pendingContexts: ['build', 'e2e'],
    });
  });

  it('when a required context has not reported, then the run is pending', () => {
    expect(evaluateRequiredStatuses(['build'], [s('Build', 'success')]).outcome).toBe('pending');
  });

  it('when a context reported twice, then its latest state counts', () => {
    expect(evaluateRequiredStatuses(['build'], [s('build', 'failure'), s('build', 'success')]).outcome).toBe('passed');
  });

  it('when nothing is required, then the run never passes by default', () => {
    expect(evaluateRequiredStatuses([], [s('build', 'success')]).outcome).toBe('pending');
  });
});

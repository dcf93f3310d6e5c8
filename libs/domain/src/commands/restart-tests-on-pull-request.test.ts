import { foldQueue } from '../state';
import { NOW, given } from '../testing/decider-spec';
import { prCancelled, prSubmitted, queueCreated, withEntryIn } from '../testing/fixtures';
import type { RestartTestsOnPullRequest } from './types';

const restart = (prNumber: number): RestartTestsOnPullRequest => ({ type: 'RestartTestsOnPullRequest', prNumber });

describe('restartTestsOnPullRequest', () => {
  it('when the queue does not exist, then QUEUE_NOT_FOUND', () => {
    given().when(restart(1)).thenThrows('QUEUE_NOT_FOUND');
  });

  it('when the PR was never submitted, then PR_NOT_IN_QUEUE', () => {
    given([queueCreated()]).when(restart(1)).thenThrows('PR_NOT_IN_QUEUE');
  });

  it('when the PR is pending, then PR_TESTS_NOT_RESTARTABLE', () => {
    given([queueCreated(), prSubmitted(1)])
      .when(restart(1))
      .thenThrows('PR_TESTS_NOT_RESTARTABLE');
  });

  it('when the PR is not ready, then PR_TESTS_NOT_RESTARTABLE', () => {
    given([queueCreated(), prSubmitted(1, { state: 'not_ready' })])
      .when(restart(1))
      .thenThrows('PR_TESTS_NOT_RESTARTABLE');
  });

  it('when the PR is cancelled, then PR_NOT_IN_ACTIVE_STATE', () => {
    given([queueCreated(), prSubmitted(1), prCancelled(1)])
      .when(restart(1))
      .thenThrows('PR_NOT_IN_ACTIVE_STATE');
  });

  it.each(['merged', 'failed'] as const)('when the PR is %s, then PR_NOT_IN_ACTIVE_STATE', (state) => {
    given([queueCreated(), prSubmitted(1)], withEntryIn(1, state))
      .when(restart(1))
      .thenThrows('PR_NOT_IN_ACTIVE_STATE');
  });

  it.each(['testing', 'tests_passed', 'pending_failure'] as const)(
    'when the PR is %s, then TestsRestarted by API request and the entry goes back to pending',
    (state) => {
      const spec = given([queueCreated(), prSubmitted(1)], withEntryIn(1, state));
      const event = { type: 'TestsRestarted' as const, data: { prNumber: 1, reason: 'TESTS_RESTARTED_BY_API_REQUEST' as const, at: NOW } };
      spec.when(restart(1)).then([event]);
      const e = foldQueue([event], spec.state).entries.get(1);
      expect(e).toMatchObject({ state: 'pending', stateChangedAt: NOW, seq: 0, entryId: 'entry-1' });
    },
  );
});

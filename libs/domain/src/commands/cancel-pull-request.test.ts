import { entryOf, foldQueue } from '../state';
import { NOW, given } from '../testing/decider-spec';
import { prCancelled, prSubmitted, queueCreated, queueDeleted, withEntryIn } from '../testing/fixtures';
import type { CancelPullRequest } from './types';

const cancel = (prNumber: number): CancelPullRequest => ({ type: 'CancelPullRequest', prNumber });
const cancelled = (prNumber: number) => ({ type: 'PrCancelled' as const, data: { prNumber, reason: 'API_REQUESTED' as const, at: NOW } });

describe('cancelPullRequest', () => {
  it('when the queue does not exist, then QUEUE_NOT_FOUND', () => {
    given().when(cancel(1)).thenThrows('QUEUE_NOT_FOUND');
  });

  it('when the PR was never submitted, then PR_NOT_IN_QUEUE', () => {
    given([queueCreated(), prSubmitted(2)])
      .when(cancel(1))
      .thenThrows('PR_NOT_IN_QUEUE');
  });

  it('when the PR was submitted to a queue that was since deleted and re-created, then PR_NOT_IN_QUEUE', () => {
    given([queueCreated(), prSubmitted(1), prCancelled(1), queueDeleted(), queueCreated()])
      .when(cancel(1))
      .thenThrows('PR_NOT_IN_QUEUE');
  });

  it('when the PR is pending, then PrCancelled and the entry is cancelled as of now', () => {
    const history = [queueCreated(), prSubmitted(1)];
    given(history)
      .when(cancel(1))
      .then([cancelled(1)]);
    const e = entryOf(foldQueue([...history, cancelled(1)]), 1);
    expect(e).toMatchObject({ state: 'cancelled', stateChangedAt: NOW });
  });

  it('when the PR is not ready, then PrCancelled', () => {
    given([queueCreated(), prSubmitted(1, { state: 'not_ready' })])
      .when(cancel(1))
      .then([cancelled(1)]);
  });

  it.each(['testing', 'tests_passed', 'pending_failure'] as const)('when the PR is %s, then PrCancelled', (state) => {
    given([queueCreated(), prSubmitted(1)], withEntryIn(1, state))
      .when(cancel(1))
      .then([cancelled(1)]);
  });

  it('when the queue is paused or draining, then a PR can still be cancelled', () => {
    given([queueCreated({ state: 'paused' }), prSubmitted(1)])
      .when(cancel(1))
      .then([cancelled(1)]);
    given([queueCreated({ state: 'draining' }), prSubmitted(1)])
      .when(cancel(1))
      .then([cancelled(1)]);
  });

  it('when the PR is already cancelled, then PR_NOT_IN_ACTIVE_STATE', () => {
    given([queueCreated(), prSubmitted(1), prCancelled(1)])
      .when(cancel(1))
      .thenThrows('PR_NOT_IN_ACTIVE_STATE');
  });

  it.each(['merged', 'failed'] as const)('when the PR is %s, then PR_NOT_IN_ACTIVE_STATE', (state) => {
    given([queueCreated(), prSubmitted(1)], withEntryIn(1, state))
      .when(cancel(1))
      .thenThrows('PR_NOT_IN_ACTIVE_STATE');
  });
});

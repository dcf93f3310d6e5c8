import { entryOf, foldQueue } from '../state';
import { NOW, given } from '../testing/decider-spec';
import { prCancelled, prSubmitted, queueCreated, queueDeleted, withEntryIn } from '../testing/fixtures';
import type { DeleteQueue } from './types';

const del: DeleteQueue = { type: 'DeleteQueue' };

describe('deleteQueue', () => {
  it('when the queue does not exist, then QUEUE_NOT_FOUND', () => {
    given().when(del).thenThrows('QUEUE_NOT_FOUND');
  });

  it('when the queue is already deleted, then QUEUE_NOT_FOUND', () => {
    given([queueCreated(), queueDeleted()]).when(del).thenThrows('QUEUE_NOT_FOUND');
  });

  it('when the queue never held a PR, then QueueDeleted', () => {
    given([queueCreated()])
      .when(del)
      .then([{ type: 'QueueDeleted', data: { at: NOW } }]);
  });

  it('when a PR is pending, then QUEUE_NOT_EMPTY', () => {
    given([queueCreated(), prSubmitted(1)])
      .when(del)
      .thenThrows('QUEUE_NOT_EMPTY');
  });

  it('when a PR is not ready yet, then QUEUE_NOT_EMPTY', () => {
    given([queueCreated(), prSubmitted(1, { state: 'not_ready' })])
      .when(del)
      .thenThrows('QUEUE_NOT_EMPTY');
  });

  it.each(['testing', 'tests_passed', 'pending_failure'] as const)('when a PR is %s, then QUEUE_NOT_EMPTY', (state) => {
    given([queueCreated(), prSubmitted(1)], withEntryIn(1, state))
      .when(del)
      .thenThrows('QUEUE_NOT_EMPTY');
  });

  it('when the queue is draining but still holds a PR, then QUEUE_NOT_EMPTY', () => {
    given([queueCreated({ state: 'draining' }), prSubmitted(1)])
      .when(del)
      .thenThrows('QUEUE_NOT_EMPTY');
  });

  it('when one of two PRs is cancelled, then QUEUE_NOT_EMPTY', () => {
    given([queueCreated(), prSubmitted(1), prSubmitted(2), prCancelled(1)])
      .when(del)
      .thenThrows('QUEUE_NOT_EMPTY');
  });

  it('when every PR was cancelled, then QueueDeleted', () => {
    given([queueCreated(), prSubmitted(1), prSubmitted(2), prCancelled(1), prCancelled(2)])
      .when(del)
      .then([{ type: 'QueueDeleted', data: { at: NOW } }]);
  });

  it('when every PR was merged, failed or cancelled, then QueueDeleted', () => {
    const history = [queueCreated(), prSubmitted(1), prSubmitted(2), prSubmitted(3), prCancelled(3)];
    given(history, (s) => {
      withEntryIn(1, 'merged')(s);
      withEntryIn(2, 'failed')(s);
    })
      .when(del)
      .then([{ type: 'QueueDeleted', data: { at: NOW } }]);
  });

  it('when the queue is deleted, then its history stays in the state but it no longer exists', () => {
    const history = [queueCreated(), prSubmitted(1), prCancelled(1)];
    const s = foldQueue([...history, ...given(history).when(del).events()]);
    expect(s.exists).toBe(false);
    expect(entryOf(s, 1)?.state).toBe('cancelled');
  });
});

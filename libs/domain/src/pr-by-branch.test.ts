import { decideSubmitPullRequest } from './commands/pull-requests';
import { entryFromBranch } from './pr-by-branch';
import { evolve, initialQueueState, type QueueState } from './state';
import type { QueueEvent } from './events';
import { at, prCancelled, prSubmitted, queueCreated, submit } from './testing/fixtures';

const stateOf = (events: QueueEvent[]): QueueState => events.reduce(evolve, initialQueueState());

describe('entryFromBranch', () => {
  it('when the host names the head branch, then the submission records it on the entry', () => {
    const s = stateOf([queueCreated()]);
    const [event] = decideSubmitPullRequest(s, submit(3, { pr: { headBranch: 'bot/update' } }), { now: at(5), newId: () => 'e3' });
    expect(event).toMatchObject({ type: 'PrSubmitted', data: { headBranch: 'bot/update' } });
    expect(entryFromBranch(stateOf([queueCreated(), event as QueueEvent]), 'bot/update')?.prNumber).toBe(3);
  });

  it('when a branch had PRs that left the queue and one that is in it, then the one in the queue is its PR', () => {
    const s = stateOf([
      queueCreated(),
      prSubmitted(1, { headBranch: 'bot/update', at: at(1) }),
      prCancelled(1, at(2)),
      prSubmitted(2, { headBranch: 'bot/update', at: at(3) }),
      prSubmitted(3, { headBranch: 'other', at: at(4) }),
    ]);
    expect(entryFromBranch(s, 'bot/update')?.prNumber).toBe(2);
  });

  it('when every PR of a branch left the queue, then the one that left last is its PR', () => {
    const s = stateOf([
      queueCreated(),
      prSubmitted(2, { headBranch: 'bot/update', at: at(1) }),
      prSubmitted(1, { headBranch: 'bot/update', at: at(2) }),
      prCancelled(2, at(9)),
      prCancelled(1, at(5)),
    ]);
    expect(entryFromBranch(s, 'bot/update')?.prNumber).toBe(2);
  });

  it('when no PR came from the branch (or entries predate recording it), then there is none', () => {
    const s = stateOf([queueCreated(), prSubmitted(1)]);
    expect(entryFromBranch(s, 'bot/update')).toBeUndefined();
  });
});

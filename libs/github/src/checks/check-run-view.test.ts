import { decide, entryOf, evolve, initialQueueState, queueIdOf, type QueueCommand, type QueueState } from '@railyard/domain';
import { renderCheckRun } from './check-run-view';

const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
let ids = 0;
const ctx = () => ({ now: '2026-11-25T02:00:00.000Z', newId: () => `id-${++ids}` });
const run = (s: QueueState, c: QueueCommand): QueueState => decide(s, c, ctx()).reduce(evolve, s);
const pr = (number: number, mergeability: 'mergeable' | 'unspecified' | 'not_mergeable' = 'mergeable') => ({
  type: 'SubmitPullRequest' as const,
  pr: {
    number,
    title: `PR ${number}`,
    author: 'alice',
    headSha: `${number}`.repeat(40).slice(0, 40),
    baseBranch: 'main',
    state: 'open' as const,
    mergeability,
  },
});
const queue = () => run(initialQueueState(), { type: 'CreateQueue', queueId: queueIdOf(repo, 'main'), repo, branch: 'main' });
const entry = (s: QueueState, n: number) => {
  const e = entryOf(s, n);
  if (!e) throw new Error(`no entry ${n}`);
  return e;
};

describe('renderCheckRun', () => {
  it('when PRs wait in the queue, then each says its position in the planner’s order, higher priority first', () => {
    let s = run(run(queue(), pr(1)), pr(2));
    s = run(s, { ...pr(3), priority: 'urgent' });
    expect([1, 2, 3].map((n) => renderCheckRun(s, entry(s, n), {}).title)).toEqual([
      'Queued at position 2',
      'Queued at position 3',
      'Queued at position 1',
    ]);
    expect(renderCheckRun(s, entry(s, 1), {})).toMatchObject({ name: 'Railyard (main)', status: 'queued', headSha: '1'.repeat(40) });
    expect(renderCheckRun(s, entry(s, 1), {}).detailsUrl).toBeUndefined();
  });

  it('when a PR is not ready, then the check run says what it waits for', () => {
    const s = run(run(queue(), pr(1, 'unspecified')), pr(2, 'not_mergeable'));
    expect(renderCheckRun(s, entry(s, 1), {}).summary).toContain('mergeability unknown');
    expect(renderCheckRun(s, entry(s, 2), {}).summary).toContain('the PR conflicts with its base branch');
  });

  it('when the queue is paused, then a waiting PR says so; the link goes to its page under the public URL', () => {
    const s = run(run(queue(), pr(1)), { type: 'UpdateQueue', state: 'paused' });
    const view = renderCheckRun(s, entry(s, 1), {}, 'https://railyard.example');
    expect(view.summary).toContain('the queue is paused');
    expect(view.detailsUrl).toBe('https://railyard.example/repos/github.com/acme/widgets/pulls/1');
  });

  it('when a PR ended, then the check run completes with the conclusion and the reason', () => {
    const s = run(run(queue(), pr(1)), { type: 'CancelPullRequest', prNumber: 1 });
    expect(renderCheckRun(s, entry(s, 1), { cancelled: { reason: 'PR_CLOSED' } })).toMatchObject({
      status: 'completed',
      conclusion: 'cancelled',
      title: 'Cancelled: the pull request was closed',
    });
  });
});

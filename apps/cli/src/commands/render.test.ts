import type { PrStatus, QueueAnswer } from './pr-target';
import { progressLine, queueTable, statusText, verdictLine } from './render';

const pr = (extra: Partial<PrStatus> = {}): PrStatus => ({
  id: 'e1',
  state: 'pending',
  readiness: { requiresImpactedTargets: false, doesBaseBranchMatch: true, hasImpactedTargets: false, gitHubMergeability: 'mergeable' },
  stateChangedAt: '2026-03-01T09:30:00.000Z',
  priorityValue: 100,
  priorityName: 'medium',
  skipTheLine: false,
  forceEnqueued: false,
  isCurrentlySubmittedToQueue: true,
  noBatch: false,
  prNumber: 12,
  prTitle: 'Add the cache',
  prSha: '9c1f6e0b4a7d3e2f1c0b9a8d7e6f5a4b3c2d1e0f',
  prBaseBranch: 'main',
  prAuthor: 'ada',
  ...extra,
});

const RUN = { id: 'run-7', status: 'failed' as const, testBranch: 'railyard-merge/pr-12/run-7', checks: [], failedChecks: [] };

describe('what the CLI prints about a PR', () => {
  it('when the server sends no explanation, then the line says state and position only', () => {
    expect(progressLine(pr(), { position: 2, depth: 5 }, [])).toBe('#12 pending · position 2 of 5');
    expect(verdictLine(pr({ state: 'merged' }))).toBe('#12 merged');
  });

  it('when the server says what the PR waits on, then the line lists it', () => {
    const waiting = pr({
      state: 'not_ready',
      waitingOn: [
        { kind: 'required_statuses', message: 'required status build has not reported' },
        { kind: 'prs_ahead', message: 'PR #11 ahead must settle' },
      ],
    });

    expect(progressLine(waiting, { position: 1, depth: 2 }, [])).toBe(
      '#12 not_ready · position 1 of 2 · waiting on: required status build has not reported; PR #11 ahead must settle',
    );
  });

  it('when the PR is testing, then the line names the run and each check with its log link', () => {
    const testing = pr({ state: 'testing', lastTestRun: { ...RUN, status: 'testing' } });

    expect(progressLine(testing, undefined, [{ name: 'test', state: 'PENDING', url: 'http://r/ci/logs/run-7/test' }])).toBe(
      '#12 testing · run run-7 on railyard-merge/pr-12/run-7 · checks: test pending http://r/ci/logs/run-7/test',
    );
  });

  it('when the PR is testing and its checks are listed, then the missing required statuses are not said twice', () => {
    const testing = pr({
      state: 'testing',
      waitingOn: [{ kind: 'required_statuses', message: 'required statuses missing on run run-7: test', checks: ['test'] }],
    });

    expect(progressLine(testing, undefined, [{ name: 'test', state: 'PENDING' }], { id: 'run-7', testBranch: '' })).toBe(
      '#12 testing · run run-7 · checks: test pending',
    );
    expect(progressLine(testing, undefined, [], { id: 'run-7', testBranch: '' })).toBe(
      '#12 testing · run run-7 · waiting on: required statuses missing on run run-7: test',
    );
  });

  it('when the PR failed, then the verdict gives the reason and the failed checks with their logs', () => {
    const failed = pr({
      state: 'failed',
      isCurrentlySubmittedToQueue: false,
      stateReason: { code: 'TEST_RUN_REQUIRED_STATUS_FAILED', message: 'check test failed on run run-7' },
      lastTestRun: { ...RUN, failedChecks: [{ name: 'test', state: 'failure', url: 'http://r/ci/logs/run-7/test' }] },
    });

    expect(verdictLine(failed)).toBe('#12 failed · check test failed on run run-7 · failed checks: test http://r/ci/logs/run-7/test');
    expect(statusText(failed, undefined)).toContain('reason:     check test failed on run run-7 [TEST_RUN_REQUIRED_STATUS_FAILED]');
    expect(statusText(failed, undefined)).toContain('  failed:   test http://r/ci/logs/run-7/test');
  });

  it('when entries wait on something, then the queue table gains a WAITING ON column', () => {
    const queue = {
      state: 'running',
      mode: 'single',
      concurrency: 2,
      batch: false,
      enqueuedPullRequests: [
        {
          number: 11,
          title: 'First',
          sha: 'a',
          author: 'bo',
          state: 'testing',
          priority: 100,
          priorityName: 'medium',
          stateChangedAt: '2026-03-01T09:00:00.000Z',
        },
        {
          number: 12,
          title: 'Second',
          sha: 'b',
          author: 'ada',
          state: 'pending',
          priority: 10,
          priorityName: 'high',
          stateChangedAt: '2026-03-01T09:05:00.000Z',
          waitingOn: [{ kind: 'prs_ahead', message: 'PR #11 ahead must settle' }],
        },
      ],
    } as unknown as QueueAnswer;

    expect(queueTable(queue, 'git.local/acme/widgets main').split('\n')).toEqual([
      'git.local/acme/widgets main: running, single mode, concurrency 2; 2 PR(s)',
      'POS  PR   STATE    PRIORITY     SINCE                 AUTHOR  TITLE   WAITING ON',
      '1    #11  testing  medium(100)  2026-03-01T09:00:00Z  bo      First',
      '2    #12  pending  high(10)     2026-03-01T09:05:00Z  ada     Second  PR #11 ahead must settle',
      '',
    ]);
  });
});

import { DEFAULT_CLASSIFICATION_RULES } from '../classify/rules';
import type { TestRun } from '../classify/types';
import { evaluateTest, lookbackMs, passCannotChange, type CurrentHealth } from './evaluate';

const REPO = { host: 'git.test', owner: 'acme', name: 'widgets' };
const T0 = Date.parse('2026-03-01T00:00:00Z');
const HOUR = 3_600_000;
const at = (h: number) => new Date(T0 + h * HOUR).toISOString();
const run = (h: number, outcome: TestRun['outcome'], extra: Partial<TestRun> = {}): TestRun => ({
  at: at(h),
  commitSha: `c${h}`.padEnd(40, '0'),
  branch: 'main',
  outcome,
  ...extra,
});

const healthy = (since: string, impacted = 0): CurrentHealth => ({
  status: 'HEALTHY',
  reason: 'healthy: no monitor active',
  since,
  pullRequestsImpactedLast7d: impacted,
  corroborated: false,
});

describe('evaluateTest', () => {
  it('when the history still says what the read model says, then there is nothing to record', () => {
    const history = [run(0, 'passed'), run(1, 'passed')];

    expect(
      evaluateTest({ repo: REPO, testId: 't', current: healthy(at(0)), history, revision: 1, now: new Date(T0 + 2 * HOUR) }),
    ).toBeNull();
  });

  it('when a commit both failed and passed, then a TestStatusChanged to FLAKY is recorded with its basis and previous status', () => {
    // given
    const sha = 'f'.repeat(40);
    const history = [run(0, 'failed', { commitSha: sha }), run(1, 'passed', { commitSha: sha })];

    // when
    const event = evaluateTest({ repo: REPO, testId: 't', current: healthy(at(0)), history, revision: 7, now: new Date(T0 + 2 * HOUR) });

    // then
    expect(event).toMatchObject({
      type: 'TestStatusChanged',
      data: {
        testId: 't',
        status: 'FLAKY',
        since: at(1),
        previous: { status: 'HEALTHY', since: at(0) },
        basis: { revision: 7 },
        at: at(2),
        pullRequestsImpactedLast7d: 0,
        corroborated: true,
      },
    });
    expect((event?.data as { reason: string }).reason).toMatch(/^pass_on_retry:/);
  });

  it('when only one pull request’s runs make the test flaky, then it is FLAKY but not corroborated, and the reason names that PR', () => {
    const sha = 'e'.repeat(40);
    const where = { branch: 'railyard-merge/pr-3/0b9e4a1c-1111-4000-8000-000000000001', commitSha: sha };
    const history = [run(0, 'failed', where), run(1, 'flaky', where)];

    const event = evaluateTest({ repo: REPO, testId: 't', current: healthy(at(0)), history, revision: 2, now: new Date(T0 + 2 * HOUR) });

    expect(event).toMatchObject({ type: 'TestStatusChanged', data: { status: 'FLAKY', corroborated: false } });
    expect((event?.data as { reason: string }).reason).toMatch(
      /^pass_on_retry: .*; not auto-quarantined: without the runs of PR #3 it would not be flaky$/,
    );
  });

  it('when the repository names its evidence reporters, then a write token’s upload claiming main leaves the test FLAKY but not corroborated, and the reason names the token', () => {
    const history = [run(0, 'flaky', { reporter: 'token:ci' })];
    const input = { repo: REPO, testId: 't', current: healthy(at(0)), history, revision: 1, now: new Date(T0 + HOUR) };

    expect(evaluateTest(input)).toMatchObject({ data: { status: 'FLAKY', corroborated: true } });
    const pinned = evaluateTest({ ...input, evidenceReporters: ['jenkins'] });
    expect(pinned).toMatchObject({ type: 'TestStatusChanged', data: { status: 'FLAKY', corroborated: false } });
    expect((pinned?.data as { reason: string }).reason).toMatch(
      /; not auto-quarantined: without the uploads of token "ci" it would not be flaky/,
    );
  });

  it('when a FLAKY test recorded before the rule (corroboration unknown) is evaluated again, then the corroboration is recorded', () => {
    const sha = 'f'.repeat(40);
    const history = [run(0, 'failed', { commitSha: sha }), run(1, 'passed', { commitSha: sha })];
    const first = evaluateTest({ repo: REPO, testId: 't', current: healthy(at(0)), history, revision: 2, now: new Date(T0 + 2 * HOUR) });
    const recorded = first?.data as { status: 'FLAKY'; reason: string; since: string };
    const current = { status: recorded.status, reason: recorded.reason, since: recorded.since, pullRequestsImpactedLast7d: 0 };

    expect(
      evaluateTest({
        repo: REPO,
        testId: 't',
        current: { ...current, corroborated: true },
        history,
        revision: 2,
        now: new Date(T0 + 2 * HOUR),
      }),
    ).toBeNull();
    expect(
      evaluateTest({
        repo: REPO,
        testId: 't',
        current: { ...current, corroborated: false },
        history,
        revision: 2,
        now: new Date(T0 + 2 * HOUR),
      }),
    ).toMatchObject({ type: 'TestStatusChanged', data: { status: 'FLAKY', corroborated: true } });
  });

  it('when only the 7-day PR impact differs, then a TestImpactChanged is recorded', () => {
    const history = [run(0, 'failed', { branch: 'feature', prNumber: 4 }), run(1, 'failed', { branch: 'feature', prNumber: 5 })];

    const event = evaluateTest({ repo: REPO, testId: 't', current: healthy(at(0), 1), history, revision: 1, now: new Date(T0 + 2 * HOUR) });

    expect(event).toEqual({
      type: 'TestImpactChanged',
      data: { repo: REPO, testId: 't', previous: 1, pullRequestsImpactedLast7d: 2, basis: { revision: 1 }, at: at(2) },
    });
  });

  it('when the failing pull requests age out of the 7-day window, then the impact drops without a new run', () => {
    const history = [run(0, 'failed', { branch: 'feature', prNumber: 4 })];

    const event = evaluateTest({
      repo: REPO,
      testId: 't',
      current: healthy(at(0), 1),
      history,
      revision: 0,
      now: new Date(T0 + 8 * 24 * HOUR),
    });

    expect(event).toMatchObject({ type: 'TestImpactChanged', data: { previous: 1, pullRequestsImpactedLast7d: 0 } });
  });
});

describe('passCannotChange', () => {
  const now = new Date(T0 + 30 * 24 * HOUR);

  it('when a healthy test never failed, then a pass cannot change it', () => {
    expect(passCannotChange(healthy(at(0)), null, now)).toBe(true);
  });

  it('when a healthy test failed within the longest monitor window, then a pass may pair with that failure', () => {
    expect(passCannotChange(healthy(at(0)), new Date(now.getTime() - lookbackMs() + HOUR).toISOString(), now)).toBe(false);
  });

  it('when the test failed longer ago than every window, then a pass cannot change it', () => {
    expect(passCannotChange(healthy(at(0)), new Date(now.getTime() - lookbackMs() - HOUR).toISOString(), now)).toBe(true);
  });

  it('when the test is not healthy or has impact, then it is always evaluated', () => {
    expect(passCannotChange({ ...healthy(at(0)), status: 'FLAKY' }, null, now)).toBe(false);
    expect(passCannotChange(healthy(at(0), 1), null, now)).toBe(false);
  });

  it('when asked for the look-back, then it is the pass-on-retry pairing window of 14 days', () => {
    expect(lookbackMs(DEFAULT_CLASSIFICATION_RULES)).toBe(14 * 24 * HOUR);
  });
});

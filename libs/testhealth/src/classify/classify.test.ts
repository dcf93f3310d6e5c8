import { classify } from './classify';
import { classificationRules, DEFAULT_CLASSIFICATION_RULES } from './rules';
import type { RunOutcome, TestRun } from './types';

const T0 = Date.parse('2026-03-01T00:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();
const hours = (h: number) => iso(T0 + h * HOUR);
const nowAt = (h: number) => new Date(T0 + h * HOUR);

let shaCounter = 0;
const uniqueSha = () => `sha${String((shaCounter += 1)).padStart(6, '0')}deadbeef`;

function run(h: number, outcome: RunOutcome, extra: Partial<TestRun> = {}): TestRun {
  return { at: hours(h), commitSha: uniqueSha(), branch: 'main', outcome, ...extra };
}

/** Runs on main, one per hour from `start`, each on its own commit, outcomes from a P/F/K(skip)/R(flaky) string. */
function mainRuns(start: number, pattern: string, extra: Partial<TestRun> = {}): TestRun[] {
  const outcomeOf: Record<string, RunOutcome> = { P: 'passed', F: 'failed', K: 'skipped', R: 'flaky' };
  return [...pattern].map((ch, i) => run(start + i, outcomeOf[ch] ?? 'passed', extra));
}

const rules = DEFAULT_CLASSIFICATION_RULES;

describe('classify: basics', () => {
  it('when a test has no runs, then it is healthy with no since', () => {
    expect(classify([], nowAt(0), rules)).toEqual({ status: 'HEALTHY', reason: 'healthy: no monitor active', since: null, monitors: [] });
  });

  it('when every run passed, then it is healthy since its first run', () => {
    // given
    const history = mainRuns(0, 'PPPPP');
    // when
    const result = classify(history, nowAt(10), rules);
    // then
    expect(result).toMatchObject({ status: 'HEALTHY', since: hours(0) });
  });

  it('when runs are skipped or lie in the future, then they are ignored', () => {
    // given skipped failures on main now, real failures only after `now`
    const history = [...mainRuns(0, 'KKKK'), ...mainRuns(100, 'FFFF')];
    // when
    const result = classify(history, nowAt(50), rules);
    // then
    expect(result.status).toBe('HEALTHY');
  });
});

describe('classify: pass on retry (FLAKY)', () => {
  it('when a commit on a pull request failed and then passed, then the test is flaky from the pass', () => {
    // given
    const history = [
      run(0, 'failed', { commitSha: 'abc1234ffff', branch: 'feature/x', prNumber: 42 }),
      run(2, 'passed', { commitSha: 'abc1234ffff', branch: 'feature/x', prNumber: 42 }),
    ];
    // when
    const result = classify(history, nowAt(3), rules);
    // then
    expect(result.status).toBe('FLAKY');
    expect(result.since).toBe(hours(2));
    expect(result.reason).toBe('pass_on_retry: failed and passed on commit abc1234 (PR #42)');
    expect(result.monitors.map((m) => m.monitor)).toEqual(['pass_on_retry']);
  });

  it('when a single run failed then passed on retry inside the job, then the test is flaky', () => {
    // given
    const history = [run(0, 'flaky', { branch: 'feature/y', prNumber: 7, ciJob: 'unit' })];
    // when
    const result = classify(history, nowAt(1), rules);
    // then
    expect(result.status).toBe('FLAKY');
    expect(result.reason).toMatch(/^pass_on_retry: failed then passed on retry in one run on commit \w+ \(PR #7, job unit\)$/);
  });

  it('when a pull request fails on one commit and passes on the next, then the test stays healthy', () => {
    // given a fix pushed to the pull request
    const history = [run(0, 'failed', { branch: 'feature/x', prNumber: 1 }), run(1, 'passed', { branch: 'feature/x', prNumber: 1 })];
    // when
    const result = classify(history, nowAt(2), rules);
    // then
    expect(result.status).toBe('HEALTHY');
  });

  it('when the pass and the fail of one commit are more than 14 days apart, then they do not pair', () => {
    // given
    const history = [run(0, 'failed', { commitSha: 'c1', branch: 'b' }), run(14 * 24 + 1, 'passed', { commitSha: 'c1', branch: 'b' })];
    // when
    const result = classify(history, nowAt(14 * 24 + 2), rules);
    // then
    expect(result.status).toBe('HEALTHY');
  });

  it('when two commits share a git tree and one failed while the other passed, then the test is flaky', () => {
    // given a rebased commit with identical content
    const history = [
      run(0, 'failed', { commitSha: 'c1', treeSha: 't1', branch: 'feature/z' }),
      run(1, 'passed', { commitSha: 'c2', treeSha: 't1', branch: 'feature/z' }),
    ];
    // when
    const result = classify(history, nowAt(2), rules);
    // then
    expect(result.status).toBe('FLAKY');
  });

  it('when the pass and the fail come from different CI jobs and sameJobOnly is set, then they do not pair', () => {
    // given
    const history = [run(0, 'failed', { commitSha: 'c1', ciJob: 'linux' }), run(0, 'passed', { commitSha: 'c1', ciJob: 'windows' })];
    // when
    const strict = classify(history, nowAt(1), classificationRules({ passOnRetry: { sameJobOnly: true } }));
    const loose = classify(history, nowAt(1), rules);
    // then
    expect(strict.status).toBe('HEALTHY');
    expect(loose.status).toBe('FLAKY');
  });

  describe('recovery', () => {
    const detection = () => [run(0, 'failed', { commitSha: 'c0', branch: 'b' }), run(0, 'passed', { commitSha: 'c0', branch: 'b' })];

    it('when 10 passes followed the detection but 7 days have not elapsed, then the test is still flaky', () => {
      // given
      const history = [...detection(), ...mainRuns(1, 'PPPPPPPPPP')];
      // when
      const result = classify(history, new Date(T0 + 7 * DAY - 1), rules);
      // then
      expect(result.status).toBe('FLAKY');
    });

    it('when 7 days passed without a detection and 10 passes followed it, then the test is healthy from day 7', () => {
      // given
      const history = [...detection(), ...mainRuns(1, 'PPPPPPPPPP')];
      // when
      const result = classify(history, new Date(T0 + 7 * DAY), rules);
      // then
      expect(result).toMatchObject({ status: 'HEALTHY', since: iso(T0 + 7 * DAY), reason: 'healthy: pass_on_retry resolved' });
    });

    it('when the test stopped running after the detection, then time alone does not heal it', () => {
      // given
      const history = detection();
      // when
      const result = classify(history, new Date(T0 + 60 * DAY), rules);
      // then
      expect(result.status).toBe('FLAKY');
    });

    it('when the tenth pass arrives after day 7, then the test is healthy from that pass', () => {
      // given 9 passes in the first week, the tenth on day 9
      const history = [...detection(), ...mainRuns(1, 'PPPPPPPPP'), run(9 * 24, 'passed')];
      // when
      const before = classify(history, new Date(T0 + 9 * DAY - 1), rules);
      const after = classify(history, new Date(T0 + 10 * DAY), rules);
      // then
      expect(before.status).toBe('FLAKY');
      expect(after).toMatchObject({ status: 'HEALTHY', since: hours(9 * 24) });
    });

    it('when a new detection happens during recovery, then the 7-day clock restarts', () => {
      // given a second flake on day 5
      const history = [
        ...detection(),
        ...mainRuns(1, 'PPPPPPPPPP'),
        run(5 * 24, 'flaky', { branch: 'b' }),
        ...mainRuns(5 * 24 + 1, 'PPPPPPPPPP'),
      ];
      // when
      const day8 = classify(history, new Date(T0 + 8 * DAY), rules);
      const day12 = classify(history, new Date(T0 + 12 * DAY), rules);
      // then
      expect(day8.status).toBe('FLAKY');
      expect(day8.since).toBe(hours(0));
      expect(day12).toMatchObject({ status: 'HEALTHY', since: iso(T0 + 12 * DAY) });
    });

    it('when the same commit is retried again after the detection, then it is not a new detection', () => {
      // given more retries of the detected commit on day 6
      const history = [
        ...detection(),
        ...mainRuns(1, 'PPPPPPPPPP'),
        run(6 * 24, 'failed', { commitSha: 'c0', branch: 'b' }),
        run(6 * 24, 'passed', { commitSha: 'c0', branch: 'b' }),
      ];
      // when
      const result = classify(history, new Date(T0 + 7 * DAY), rules);
      // then
      expect(result.status).toBe('HEALTHY');
    });
  });
});

describe('classify: failure rate on protected branches (FLAKY)', () => {
  it('when exactly 10% of 20 runs on main failed in 72h, then the test is flaky', () => {
    // given
    const history = mainRuns(0, 'PPPPFPPPPPPPPPFPPPPP');
    // when
    const result = classify(history, nowAt(30), rules);
    // then
    expect(result).toMatchObject({
      status: 'FLAKY',
      since: hours(19),
      reason: 'failure_rate: 10% of 20 runs failed on protected branches in 72h',
    });
  });

  it('when 2 of 21 runs failed (9.5%), then the test stays healthy', () => {
    // given all 21 uploads arrive in the same hour
    const history = mainRuns(0, 'PPPPPFPPPPPPPPPPPPPPF').map((r) => ({ ...r, at: hours(0) }));
    // when
    const result = classify(history, nowAt(30), rules);
    // then
    expect(result.status).toBe('HEALTHY');
  });

  it('when only 19 runs are in the window, then even 10.5% does not flag the test', () => {
    // given
    const history = mainRuns(0, 'PPPPFPPPPPPPPPFPPPP');
    // when
    const result = classify(history, nowAt(30), rules);
    // then
    expect(result.status).toBe('HEALTHY');
  });

  it('when the rate drops into the band between 5% and 10%, then the test stays flaky (hysteresis)', () => {
    // given 2/20 activates, then 10 more passes make it 2/30 = 6.7%
    const history = mainRuns(0, `PPPPFPPPPPPPPPFPPPPP${'P'.repeat(10)}`);
    // when
    const result = classify(history, nowAt(40), rules);
    // then
    expect(result.status).toBe('FLAKY');
  });

  it('when the rate never reached 10%, then a rate in the band does not flag the test', () => {
    // given 2 failures among 28 runs, the second failure late: at 20 runs only 1/20
    const history = mainRuns(0, `PPPPFPPPPPPPPPPPPPPPPPPPPPPF`);
    // when
    const result = classify(history, nowAt(40), rules);
    // then
    expect(result.status).toBe('HEALTHY');
  });

  it('when the rate falls below 5%, then the test is healthy again', () => {
    // given 2/20 activates, then 21 more passes make it 2/41 = 4.9%
    const history = mainRuns(0, `PPPPFPPPPPPPPPFPPPPP${'P'.repeat(21)}`);
    // when
    const result = classify(history, nowAt(50), rules);
    // then
    expect(result).toMatchObject({ status: 'HEALTHY', since: hours(40), reason: 'healthy: failure_rate resolved' });
  });

  it('when an old failure leaves the 72h window, then the lower rate resolves the test at that moment', () => {
    // given failures at hours 0 and 14, passes up to hour 39 (2/40 = 5%, not below)
    const history = mainRuns(0, `FPPPPPPPPPPPPPFPPPPP${'P'.repeat(20)}`);
    // when
    const during = classify(history, nowAt(71), rules);
    const after = classify(history, nowAt(80), rules);
    // then the first failure leaves at hour 72: 1/39
    expect(during.status).toBe('FLAKY');
    expect(after).toMatchObject({ status: 'HEALTHY', since: hours(72) });
  });

  it('when the same failure rate is seen on pull request branches, then the test stays healthy', () => {
    // given
    const history = mainRuns(0, 'PPPFPPPFPPPFPPPFPPPP', { branch: 'feature/a', prNumber: 5 });
    // when
    const result = classify(history, nowAt(30), rules);
    // then
    expect(result.status).toBe('HEALTHY');
  });

  it('when merge-queue branches fail, then they count as protected', () => {
    // given
    const history = mainRuns(0, 'PPPPFPPPPPPPPPFPPPPP', { branch: 'gh-readonly-queue/main/pr-12-abcdef' });
    // when
    const result = classify(history, nowAt(30), rules);
    // then
    expect(result.status).toBe('FLAKY');
  });
});

describe('classify: broken', () => {
  it('when 80% of at least 5 runs on main failed in 24h, then the test is broken', () => {
    // given no three failures in a row
    const history = mainRuns(0, 'FFPFF');
    // when
    const result = classify(history, nowAt(5), rules);
    // then
    expect(result).toMatchObject({
      status: 'BROKEN',
      since: hours(4),
      reason: 'broken_rate: 80% of 5 runs failed on protected branches in 24h',
    });
  });

  it('when the failure rate never reaches 80% when a failure arrives, then the test is not broken', () => {
    // given
    const history = mainRuns(0, 'PFFPFF');
    // when
    const result = classify(history, nowAt(6), rules);
    // then
    expect(result.status).toBe('HEALTHY');
  });

  it('when fewer runs than the minimum are in the window, then a high rate is not enough', () => {
    // given
    const history = mainRuns(0, 'FFPFF');
    // when
    const result = classify(history, nowAt(5), classificationRules({ brokenRate: { minRuns: 6 } }));
    // then
    expect(result.status).toBe('HEALTHY');
  });

  it('when three passes in a row follow, then the broken test is healthy again', () => {
    // given
    const history = mainRuns(0, 'FFPFFPPP');
    // when
    const result = classify(history, nowAt(10), rules);
    // then
    expect(result).toMatchObject({ status: 'HEALTHY', since: hours(7), reason: 'healthy: broken_rate resolved' });
  });

  it('when the rate falls below 50%, then the broken test resolves even without a pass streak', () => {
    // given 4/9 = 44% after activation, pass-streak resolution disabled
    const history = mainRuns(0, 'FFPFFPPPP');
    const noStreak = classificationRules({ brokenRate: { resolvePasses: 100 } });
    // when
    const at8 = classify(history.slice(0, 8), nowAt(10), noStreak);
    const at9 = classify(history, nowAt(10), noStreak);
    // then 4/8 = 50% is not below
    expect(at8.status).toBe('BROKEN');
    expect(at9).toMatchObject({ status: 'HEALTHY', since: hours(8) });
  });

  it('when three runs in a row failed on three commits, then the test is broken', () => {
    // given
    const history = mainRuns(0, 'PFFF');
    // when
    const result = classify(history, nowAt(4), rules);
    // then
    expect(result).toMatchObject({
      status: 'BROKEN',
      since: hours(3),
      reason: 'consecutive_failures: 3 failing runs in a row across 3 commits on protected branches',
    });
  });

  it('when the three failures are retries of one commit, then the test is not broken', () => {
    // given
    const history = [run(0, 'passed'), ...mainRuns(1, 'FFF', { commitSha: 'same' })];
    // when
    const result = classify(history, nowAt(4), rules);
    // then
    expect(result.status).toBe('HEALTHY');
  });

  it('when consecutive failures are followed by three passes, then the test is healthy', () => {
    // given
    const history = mainRuns(0, 'FFFPPP');
    // when
    const result = classify(history, nowAt(7), rules);
    // then
    expect(result).toMatchObject({ status: 'HEALTHY', since: hours(5) });
  });

  it('when a test fails in 80% of 30 pull request runs across 3 pull requests, then it is broken', () => {
    // given
    const history = [...'PPPPPPFFFFFFFFFFFFFFFFFFFFFFFF'].map((ch, i) =>
      run(i * 0.5, ch === 'F' ? 'failed' : 'passed', { branch: `feature/${i % 3}`, prNumber: 100 + (i % 3) }),
    );
    // when
    const result = classify(history, nowAt(20), rules);
    // then
    expect(result).toMatchObject({
      status: 'BROKEN',
      reason: 'broken_on_pull_requests: 80% of 30 runs failed across 3 pull requests in 24h',
    });
  });

  it('when the same pull request failures come from only 2 pull requests, then the test is not broken', () => {
    // given
    const history = [...'PPPPPPFFFFFFFFFFFFFFFFFFFFFFFF'].map((ch, i) =>
      run(i * 0.5, ch === 'F' ? 'failed' : 'passed', { branch: `feature/${i % 2}`, prNumber: 100 + (i % 2) }),
    );
    // when
    const result = classify(history, nowAt(20), rules);
    // then
    expect(result.status).toBe('HEALTHY');
  });
});

describe('classify: precedence', () => {
  it('when a flaky test breaks and recovers, then it is broken in between and flaky again afterwards', () => {
    // given a flake on a pull request, then three failing commits on main, then three passes
    const history = [
      run(0, 'failed', { commitSha: 'c0', branch: 'feature/q', prNumber: 9 }),
      run(0, 'passed', { commitSha: 'c0', branch: 'feature/q', prNumber: 9 }),
      ...mainRuns(1, 'FFF'),
      ...mainRuns(4, 'PPP'),
    ];
    // when
    const broken = classify(history.slice(0, 5), nowAt(4), rules);
    const after = classify(history, nowAt(7), rules);
    // then
    expect(broken).toMatchObject({ status: 'BROKEN', since: hours(3) });
    expect(broken.monitors.map((m) => m.monitor)).toEqual(['consecutive_failures', 'pass_on_retry']);
    expect(after).toMatchObject({ status: 'FLAKY', since: hours(6) });
    expect(after.reason).toMatch(/^pass_on_retry:/);
  });
});

describe('classify: outage guard', () => {
  it('when the failures come from uploads where over 80% of tests failed, then they are ignored', () => {
    // given
    const history = mainRuns(0, 'FFF', { upload: { testCount: 100, failedCount: 81 } });
    // when
    const result = classify(history, nowAt(4), rules);
    // then
    expect(result.status).toBe('HEALTHY');
  });

  it('when exactly 80% of the upload failed, then the runs still count', () => {
    // given
    const history = mainRuns(0, 'FFF', { upload: { testCount: 100, failedCount: 80 } });
    // when
    const result = classify(history, nowAt(4), rules);
    // then
    expect(result.status).toBe('BROKEN');
  });

  it('when the upload holds fewer than 20 tests, then even all of them failing is not an outage', () => {
    // given
    const history = mainRuns(0, 'FFF', { upload: { testCount: 19, failedCount: 19 } });
    // when
    const result = classify(history, nowAt(4), rules);
    // then
    expect(result.status).toBe('BROKEN');
  });

  it('when the guard is disabled, then outage uploads count', () => {
    // given
    const history = mainRuns(0, 'FFF', { upload: { testCount: 100, failedCount: 100 } });
    // when
    const result = classify(history, nowAt(4), classificationRules({ outageGuard: { enabled: false } }));
    // then
    expect(result.status).toBe('BROKEN');
  });
});

describe('classify: disabled monitors', () => {
  it('when every monitor is disabled, then nothing flags the test', () => {
    // given
    const off = classificationRules({
      passOnRetry: { enabled: false },
      failureRate: { enabled: false },
      brokenRate: { enabled: false },
      consecutiveFailures: { enabled: false },
      brokenOnPullRequests: { enabled: false },
    });
    const history = [...mainRuns(0, 'FFFFFFFF'), run(9, 'flaky')];
    // when
    const result = classify(history, nowAt(10), off);
    // then
    expect(result.status).toBe('HEALTHY');
  });
});

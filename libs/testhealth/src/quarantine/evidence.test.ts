import { DEFAULT_CLASSIFICATION_RULES } from '../classify/rules';
import type { RunOutcome, TestRun } from '../classify/types';
import { corroborationOf, originOf } from './evidence';
import { countsAsEvidence, quarantineEvidenceOf, uploaderOf } from './evidence-reporters';

const T0 = Date.parse('2026-03-01T00:00:00Z');
const HOUR = 3_600_000;
const now = new Date(T0 + 48 * HOUR);
let seq = 0;

const run = (h: number, outcome: RunOutcome, where: Partial<TestRun>): TestRun => ({
  at: new Date(T0 + h * HOUR).toISOString(),
  commitSha: `c${String(++seq).padStart(39, '0')}`,
  branch: 'main',
  outcome,
  ...where,
});

/** A run that failed and passed on retry inside one job: a pass_on_retry detection on its own. */
const flakyIn = (h: number, where: Partial<TestRun>): TestRun => run(h, 'flaky', where);

describe('originOf', () => {
  it.each([
    [{ branch: 'feature/x', prNumber: 12 }, 'pr:12'],
    [{ branch: 'railyard-merge/pr-12/0b9e4a1c-1111-4000-8000-000000000001' }, 'pr:12'],
    [{ branch: 'gh-readonly-queue/main/pr-5-0123456789abcdef0123456789abcdef01234567' }, 'pr:5'],
    [{ branch: 'railyard-merge/0b9e4a1c-1111-4000-8000-000000000001' }, 'branch:railyard-merge/0b9e4a1c-1111-4000-8000-000000000001'],
    [{ branch: 'feature/x' }, 'branch:feature/x'],
    [{ branch: 'main' }, null],
    [{ branch: 'develop' }, null],
  ] as const)('when a run is on %j, then its origin is %s', (where, expected) => {
    expect(originOf(run(0, 'passed', where), DEFAULT_CLASSIFICATION_RULES)).toBe(expected);
  });
});

describe('corroborationOf', () => {
  it('when only one pull request’s runs (its branch and its test branch) show the test flaky, then the verdict is FLAKY but not corroborated, and it names the PR', () => {
    const history = [
      flakyIn(1, { branch: 'feature/x', prNumber: 7 }),
      flakyIn(2, { branch: 'railyard-merge/pr-7/0b9e4a1c-1111-4000-8000-000000000001' }),
      run(3, 'passed', { branch: 'main' }),
    ];
    expect(corroborationOf(history, now)).toEqual({ corroborated: false, restsOn: 'PR #7' });
  });

  it('when two pull requests each show it flaky, then it is corroborated', () => {
    const history = [flakyIn(1, { branch: 'a', prNumber: 7 }), flakyIn(2, { branch: 'b', prNumber: 8 })];
    expect(corroborationOf(history, now)).toEqual({ corroborated: true });
  });

  it('when the target branch’s own runs show it flaky, then it is corroborated whatever pull requests add', () => {
    expect(corroborationOf([flakyIn(1, { branch: 'main' })], now)).toEqual({ corroborated: true });
    expect(corroborationOf([flakyIn(1, { branch: 'main' }), flakyIn(2, { branch: 'x', prNumber: 7 })], now)).toEqual({
      corroborated: true,
    });
  });

  it('when a pass and a fail of one commit come from one pull request’s re-runs, then that pairing alone does not corroborate', () => {
    const sha = 'd'.repeat(40);
    const where = { branch: 'railyard-merge/pr-9/0b9e4a1c-1111-4000-8000-000000000002', commitSha: sha };
    const history = [run(1, 'failed', where), run(2, 'passed', where)];
    expect(corroborationOf(history, now)).toEqual({ corroborated: false, restsOn: 'PR #9' });
  });

  it('when the test is not FLAKY, then there is nothing to corroborate', () => {
    expect(corroborationOf([run(1, 'passed', {})], now)).toEqual({ corroborated: false, restsOn: null });
  });
});

describe('countsAsEvidence', () => {
  it.each([
    [null, 'token:ci', true],
    [null, undefined, true],
    [['jenkins'], 'token:jenkins', true],
    [['token:jenkins'], 'token:jenkins', true],
    [['jenkins'], 'token:ci', false],
    [['jenkins'], undefined, false],
    [['jenkins'], 'local-ci', true],
    [[], 'local-ci', true],
    [[], 'token:jenkins', false],
  ] as const)('when the repository names %j and the upload is by %s, then it counts: %s', (reporters, reporter, expected) => {
    expect(countsAsEvidence(reporters, reporter)).toBe(expected);
  });
});

describe('uploaderOf', () => {
  it('when an upload from before uploaders were names a test run, then it is the local CI’s; without one, unknown', () => {
    expect(uploaderOf({ testRunId: 'r1' })).toBe('local-ci');
    expect(uploaderOf({})).toBeUndefined();
    expect(uploaderOf({ reporter: 'token:ci', testRunId: 'r1' })).toBe('token:ci');
  });
});

describe('quarantineEvidenceOf', () => {
  const forged = [run(1, 'flaky', { branch: 'main', reporter: 'token:ci' })];

  it('when no reporters are named, then a write token’s upload claiming main corroborates, as before', () => {
    expect(quarantineEvidenceOf(forged, now, null)).toEqual({ corroborated: true });
  });

  it('when the repository names other reporters, then the write token’s upload claiming main does not count, and the reason names it', () => {
    expect(quarantineEvidenceOf(forged, now, ['jenkins'])).toEqual({
      corroborated: false,
      why: 'without the uploads of token "ci" it would not be flaky, and the repository does not name them as reporters',
    });
  });

  it('when a token uploads for two made-up pull requests and is not named, then they do not corroborate', () => {
    const history = [
      run(1, 'flaky', { branch: 'a', prNumber: 71, reporter: 'token:ci' }),
      run(2, 'flaky', { branch: 'b', prNumber: 72, reporter: 'token:ci' }),
    ];
    expect(quarantineEvidenceOf(history, now, ['jenkins']).corroborated).toBe(false);
    expect(quarantineEvidenceOf(history, now, null).corroborated).toBe(true);
  });

  it('when the named reporter and the local CI show it flaky, then it is corroborated; an unknown uploader never counts once reporters are named', () => {
    const history = [
      run(1, 'flaky', { branch: 'a', prNumber: 71, reporter: 'token:jenkins' }),
      run(2, 'flaky', { branch: 'railyard-merge/pr-72/0b9e4a1c-1111-4000-8000-000000000001', reporter: 'local-ci' }),
    ];
    expect(quarantineEvidenceOf(history, now, ['jenkins'])).toEqual({ corroborated: true });
    expect(quarantineEvidenceOf([run(1, 'flaky', { branch: 'main' })], now, ['jenkins']).corroborated).toBe(false);
  });

  it('when the counted uploads are all one pull request’s, then the single-origin rule still holds', () => {
    const history = [
      run(1, 'flaky', { branch: 'a', prNumber: 7, reporter: 'local-ci' }),
      run(2, 'flaky', { branch: 'main', reporter: 'token:ci' }),
    ];
    expect(quarantineEvidenceOf(history, now, [])).toEqual({ corroborated: false, why: 'without the runs of PR #7 it would not be flaky' });
  });

  it('when the test is not FLAKY, then there is nothing to corroborate and nothing to say', () => {
    expect(quarantineEvidenceOf([run(1, 'passed', { reporter: 'token:ci' })], now, ['jenkins'])).toEqual({ corroborated: false });
  });
});

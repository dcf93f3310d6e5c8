import { branchMatches } from './branch-glob';
import { classificationRules, DEFAULT_CLASSIFICATION_RULES } from './rules';

describe('classificationRules', () => {
  it('when no overrides are given, then the defaults are returned', () => {
    expect(classificationRules()).toEqual(DEFAULT_CLASSIFICATION_RULES);
  });

  it('when one field of a monitor is overridden, then the other fields keep their defaults', () => {
    // when
    const rules = classificationRules({ failureRate: { windowHours: 24 } });
    // then
    expect(rules.failureRate).toEqual({ ...DEFAULT_CLASSIFICATION_RULES.failureRate, windowHours: 24 });
  });

  it('when the resolve threshold is above the activation threshold, then the rules are refused', () => {
    expect(() => classificationRules({ failureRate: { activateAt: 0.1, resolveBelow: 0.2 } })).toThrow(/failureRate.resolveBelow/);
  });

  it('when counts or windows are not positive, then every problem is listed', () => {
    // when
    const run = () => classificationRules({ brokenRate: { minRuns: 0, windowHours: -1 } });
    // then
    expect(run).toThrow(/brokenRate.windowHours.*brokenRate.minRuns/);
  });
});

describe('branchMatches', () => {
  it('when a glob has a star, then it also crosses slashes', () => {
    expect(branchMatches('gh-readonly-queue/main/pr-1-abc', ['gh-readonly-queue/*'])).toBe(true);
    expect(branchMatches('release/1.2', ['release/?.?'])).toBe(true);
  });

  it('when no glob matches exactly, then the branch is not matched', () => {
    expect(branchMatches('mainline', ['main'])).toBe(false);
    expect(branchMatches('feature/main', ['main'])).toBe(false);
    expect(branchMatches('a.b', ['a?b', 'x'])).toBe(true);
    expect(branchMatches('axb', ['a.b'])).toBe(false);
  });
});

import type { Mergeability } from './events';
import { isReady, readinessOf, sameReadiness } from './readiness';

const base = {
  mode: 'single' as const,
  queueBranch: 'main',
  baseBranch: 'main',
  mergeability: 'mergeable' as const,
  hasImpactedTargets: false,
};

describe('readinessOf', () => {
  it('when the queue is single, then impacted targets are not required', () => {
    expect(readinessOf(base)).toStrictEqual({
      requiresImpactedTargets: false,
      doesBaseBranchMatch: true,
      hasImpactedTargets: false,
      mergeability: 'mergeable',
    });
  });

  it('when the queue is parallel, then impacted targets are required', () => {
    expect(readinessOf({ ...base, mode: 'parallel' }).requiresImpactedTargets).toBe(true);
  });

  it('when the PR base differs from the queue branch, then doesBaseBranchMatch is false (exact, case-sensitive)', () => {
    expect(readinessOf({ ...base, baseBranch: 'develop' }).doesBaseBranchMatch).toBe(false);
    expect(readinessOf({ ...base, baseBranch: 'Main' }).doesBaseBranchMatch).toBe(false);
  });
});

describe('isReady', () => {
  const ready = readinessOf(base);

  it('when the base matches, the PR is mergeable and no targets are required, then ready', () => {
    expect(isReady(ready)).toBe(true);
  });

  it.each<Mergeability>(['unspecified', 'in_progress', 'not_mergeable'])('when mergeability is %s, then not ready', (mergeability) => {
    expect(isReady({ ...ready, mergeability })).toBe(false);
  });

  it('when the base does not match, then not ready', () => {
    expect(isReady({ ...ready, doesBaseBranchMatch: false })).toBe(false);
  });

  it('when targets are required, then ready only once they are there', () => {
    expect(isReady({ ...ready, requiresImpactedTargets: true, hasImpactedTargets: false })).toBe(false);
    expect(isReady({ ...ready, requiresImpactedTargets: true, hasImpactedTargets: true })).toBe(true);
  });

  it('when targets are there but not required, then they change nothing', () => {
    expect(isReady({ ...ready, hasImpactedTargets: true })).toBe(true);
  });
});

describe('sameReadiness', () => {
  const r = readinessOf(base);

  it('when every field is equal, then same', () => {
    expect(sameReadiness(r, { ...r })).toBe(true);
  });

  it.each([
    { requiresImpactedTargets: true },
    { doesBaseBranchMatch: false },
    { hasImpactedTargets: true },
    { mergeability: 'in_progress' as const },
  ])('when %p differs, then not the same', (diff) => {
    expect(sameReadiness(r, { ...r, ...diff })).toBe(false);
  });
});

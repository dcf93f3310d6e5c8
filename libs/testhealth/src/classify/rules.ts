/**
 * Detection rules. Defaults and their reasoning: docs/test-health.md.
 * Rates are fractions in [0, 1]. A monitor with `enabled: false` never activates.
 */
export interface ClassificationRules {
  /**
   * Branches where a failure is unexpected: the default branch and merge-queue branches. Globs in
   * which `*` also crosses `/` (as in Trunk's monitors). Add the repository's own default branch.
   */
  protectedBranches: string[];
  /** Uploads where most tests failed are an outage, not evidence about any single test. */
  outageGuard: { enabled: boolean; minTests: number; maxFailedRatio: number };
  passOnRetry: {
    enabled: boolean;
    /** Branch globs the rule watches; all branches by default. */
    branches: string[];
    /** A pass and a fail on one commit count only if they are at most this far apart. */
    pairWindowHours: number;
    /** Count only a pass and a fail from the same CI job (off: any two jobs on the commit). */
    sameJobOnly: boolean;
    /** Resolves once both hold: this many days without a new detection... */
    recoveryDays: number;
    /** ...and this many passing runs since the last detection (time alone never heals). */
    recoveryPasses: number;
  };
  failureRate: {
    enabled: boolean;
    windowHours: number;
    minRuns: number;
    activateAt: number;
    resolveBelow: number;
  };
  brokenRate: {
    enabled: boolean;
    windowHours: number;
    minRuns: number;
    activateAt: number;
    resolveBelow: number;
    resolvePasses: number;
  };
  consecutiveFailures: {
    enabled: boolean;
    failures: number;
    distinctCommits: number;
    resolvePasses: number;
  };
  brokenOnPullRequests: {
    enabled: boolean;
    windowHours: number;
    minRuns: number;
    minDistinctPullRequests: number;
    activateAt: number;
    resolveBelow: number;
    resolvePasses: number;
  };
}

export const DEFAULT_CLASSIFICATION_RULES: ClassificationRules = {
  protectedBranches: ['main', 'master', 'develop', 'railyard-merge/*', 'gh-readonly-queue/*'],
  outageGuard: { enabled: true, minTests: 20, maxFailedRatio: 0.8 },
  passOnRetry: { enabled: true, branches: ['*'], pairWindowHours: 14 * 24, sameJobOnly: false, recoveryDays: 7, recoveryPasses: 10 },
  failureRate: { enabled: true, windowHours: 72, minRuns: 20, activateAt: 0.1, resolveBelow: 0.05 },
  brokenRate: { enabled: true, windowHours: 24, minRuns: 5, activateAt: 0.8, resolveBelow: 0.5, resolvePasses: 3 },
  consecutiveFailures: { enabled: true, failures: 3, distinctCommits: 3, resolvePasses: 3 },
  brokenOnPullRequests: {
    enabled: true,
    windowHours: 24,
    minRuns: 30,
    minDistinctPullRequests: 3,
    activateAt: 0.8,
    resolveBelow: 0.5,
    resolvePasses: 3,
  },
};

export type ClassificationRulesInput = {
  [K in keyof ClassificationRules]?: ClassificationRules[K] extends unknown[] ? ClassificationRules[K] : Partial<ClassificationRules[K]>;
};

const isRate = (n: number) => Number.isFinite(n) && n >= 0 && n <= 1;
const isPositive = (n: number) => Number.isFinite(n) && n > 0;
const isCount = (n: number) => Number.isInteger(n) && n >= 1;

function problemsOf(r: ClassificationRules): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) problems.push(what);
  };
  check(isRate(r.outageGuard.maxFailedRatio), 'outageGuard.maxFailedRatio must be within [0, 1]');
  check(isCount(r.outageGuard.minTests), 'outageGuard.minTests must be a positive integer');
  check(isPositive(r.passOnRetry.pairWindowHours), 'passOnRetry.pairWindowHours must be positive');
  check(isPositive(r.passOnRetry.recoveryDays), 'passOnRetry.recoveryDays must be positive');
  check(
    Number.isInteger(r.passOnRetry.recoveryPasses) && r.passOnRetry.recoveryPasses >= 0,
    'passOnRetry.recoveryPasses must be a non-negative integer',
  );
  for (const [name, m] of [
    ['failureRate', r.failureRate],
    ['brokenRate', r.brokenRate],
    ['brokenOnPullRequests', r.brokenOnPullRequests],
  ] as const) {
    check(isPositive(m.windowHours), `${name}.windowHours must be positive`);
    check(isCount(m.minRuns), `${name}.minRuns must be a positive integer`);
    check(isRate(m.activateAt) && m.activateAt > 0, `${name}.activateAt must be within (0, 1]`);
    check(isRate(m.resolveBelow) && m.resolveBelow <= m.activateAt, `${name}.resolveBelow must be within [0, activateAt]`);
  }
  for (const [name, n] of [
    ['brokenRate.resolvePasses', r.brokenRate.resolvePasses],
    ['consecutiveFailures.failures', r.consecutiveFailures.failures],
    ['consecutiveFailures.distinctCommits', r.consecutiveFailures.distinctCommits],
    ['consecutiveFailures.resolvePasses', r.consecutiveFailures.resolvePasses],
    ['brokenOnPullRequests.minDistinctPullRequests', r.brokenOnPullRequests.minDistinctPullRequests],
    ['brokenOnPullRequests.resolvePasses', r.brokenOnPullRequests.resolvePasses],
  ] as const) {
    check(isCount(n), `${name} must be a positive integer`);
  }
  check(
    r.consecutiveFailures.distinctCommits <= r.consecutiveFailures.failures,
    'consecutiveFailures.distinctCommits must not exceed failures',
  );
  return problems;
}

/** Repository overrides on top of the defaults, validated; throws RangeError listing every problem. */
export function classificationRules(overrides: ClassificationRulesInput = {}): ClassificationRules {
  const d = DEFAULT_CLASSIFICATION_RULES;
  const rules: ClassificationRules = {
    protectedBranches: [...(overrides.protectedBranches ?? d.protectedBranches)],
    outageGuard: { ...d.outageGuard, ...overrides.outageGuard },
    passOnRetry: { ...d.passOnRetry, ...overrides.passOnRetry },
    failureRate: { ...d.failureRate, ...overrides.failureRate },
    brokenRate: { ...d.brokenRate, ...overrides.brokenRate },
    consecutiveFailures: { ...d.consecutiveFailures, ...overrides.consecutiveFailures },
    brokenOnPullRequests: { ...d.brokenOnPullRequests, ...overrides.brokenOnPullRequests },
  };
  const problems = problemsOf(rules);
  if (problems.length > 0) throw new RangeError(`invalid classification rules: ${problems.join('; ')}`);
  return rules;
}

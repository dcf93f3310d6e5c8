import { foldAttempts } from './attempts';
import type { TestCaseResult } from './types';

// NUL cannot occur in XML text (the decoder leaves &#0; as written), so it is a safe separator.
const identityKey = (c: Pick<TestCaseResult, 'parent' | 'classname' | 'file' | 'name' | 'variant' | 'explicitId'>): string =>
  `${c.parent}\u0000${c.classname}\u0000${c.file}\u0000${c.name}\u0000${c.variant}\u0000${c.explicitId ?? ''}`;

/** `later` ran after `earlier` (a retry written as a duplicate testcase, or a later attempt file). */
export function foldResults(earlier: TestCaseResult, later: TestCaseResult): TestCaseResult {
  const summary = foldAttempts(
    { status: earlier.status, attempts: earlier.attempts, failedAttempts: earlier.failedAttempts, ...failureOf(earlier) },
    { status: later.status, attempts: later.attempts, failedAttempts: later.failedAttempts, ...failureOf(later) },
  );
  const { failureKind: _k, failureMessage: _m, ...base } = earlier;
  return {
    ...base,
    status: summary.status,
    attempts: summary.attempts,
    failedAttempts: summary.failedAttempts,
    durationMs: earlier.durationMs + later.durationMs,
    ...(summary.lastFailure ? { failureKind: summary.lastFailure.kind, failureMessage: summary.lastFailure.message } : {}),
    ...((earlier.startedAt ?? later.startedAt) ? { startedAt: earlier.startedAt ?? later.startedAt } : {}),
  };
}

function failureOf(r: TestCaseResult) {
  return r.failureKind !== undefined ? { lastFailure: { kind: r.failureKind, message: r.failureMessage ?? '' } } : {};
}

const timeOf = (r: TestCaseResult): number => (r.startedAt === undefined ? Number.NaN : Date.parse(r.startedAt));

/**
 * Merges results that share an identity into one per test, in order of first appearance. Runs are
 * ordered by their order in the input, or with `timestamp` by timestamp when every run of the test
 * has one.
 */
export function mergeByIdentity(results: readonly TestCaseResult[], order: 'timestamp' | 'input'): TestCaseResult[] {
  const groups = new Map<string, TestCaseResult[]>();
  for (const r of results) {
    const key = identityKey(r);
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.values()].map((group) => {
    if (group.length === 1) return group[0] as TestCaseResult;
    const ordered =
      order === 'timestamp' && group.length > 1 && group.every((r) => Number.isFinite(timeOf(r)))
        ? [...group].sort((a, b) => timeOf(a) - timeOf(b))
        : group;
    const [first, ...rest] = ordered as [TestCaseResult, ...TestCaseResult[]];
    return rest.reduce(foldResults, first);
  });
}

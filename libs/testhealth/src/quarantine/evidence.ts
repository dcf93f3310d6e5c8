import { classify } from '../classify/classify';
import { branchMatches } from '../classify/branch-glob';
import { DEFAULT_CLASSIFICATION_RULES, type ClassificationRules } from '../classify/rules';
import type { Classification, TestRun } from '../classify/types';

/**
 * Merge-queue test branches: protected (a failure there is unexpected), but their code and reports are
 * the pull request's. Railyard's are `railyard-merge/pr-<n>/<test run id>`, GitHub's merge queue's
 * `gh-readonly-queue/<base>/pr-<n>-<sha>`; both name the pull request they test.
 */
const QUEUE_BRANCHES: readonly { glob: string; pr: RegExp }[] = [
  { glob: 'railyard-merge/*', pr: /^railyard-merge\/pr-(\d+)\// },
  { glob: 'gh-readonly-queue/*', pr: /^gh-readonly-queue\/.+\/pr-(\d+)-[0-9a-f]+$/ },
];

/**
 * Who controlled the code and the report behind a run: `pr:<n>` for a pull request's own runs (its
 * branch, or a merge-queue test branch naming it), `branch:<name>` for a branch that is not protected,
 * and null for a protected branch's own runs (code that already merged), which no pull request steers.
 */
export function originOf(run: TestRun, rules: ClassificationRules = DEFAULT_CLASSIFICATION_RULES): string | null {
  if (run.prNumber !== undefined) return `pr:${run.prNumber}`;
  for (const q of QUEUE_BRANCHES) {
    if (!branchMatches(run.branch, [q.glob])) continue;
    const n = q.pr.exec(run.branch)?.[1];
    return n !== undefined ? `pr:${Number(n)}` : `branch:${run.branch}`;
  }
  return branchMatches(run.branch, rules.protectedBranches) ? null : `branch:${run.branch}`;
}

const describeOrigin = (origin: string): string => (origin.startsWith('pr:') ? `PR #${origin.slice(3)}` : origin.slice('branch:'.length));

export type Corroboration = { corroborated: true } | { corroborated: false; restsOn: string | null };

/**
 * The rule that keeps test health from being steered by the run it judges (issue 25, docs/test-health.md
 * §4): a FLAKY verdict is **corroborated** when it still holds after taking away every run of any one
 * pull request (or unprotected branch), that is, when no single origin's reports made the test flaky.
 * Runs of protected branches (merged code) are never taken away. Only a corroborated FLAKY test is
 * auto-quarantined, so a pull request's own `<flakyFailure>` can neither quarantine a test for everyone
 * nor waive its own failure: the run being judged is always part of one origin, and the verdict must
 * stand without it. `restsOn` names the origin the verdict needs (null when the test is not FLAKY).
 */
export function corroborationOf(
  history: readonly TestRun[],
  now: Date,
  rules: ClassificationRules = DEFAULT_CLASSIFICATION_RULES,
  verdict: Classification = classify(history, now, rules),
): Corroboration {
  if (verdict.status !== 'FLAKY') return { corroborated: false, restsOn: null };
  const origins = history.map((run) => originOf(run, rules));
  // Only origins holding a failed attempt can be what made the test flaky.
  const suspects = new Set<string>();
  history.forEach((run, i) => {
    const origin = origins[i];
    if (origin !== null && origin !== undefined && (run.outcome === 'failed' || run.outcome === 'flaky')) suspects.add(origin);
  });
  for (const suspect of [...suspects].sort()) {
    const without = history.filter((_, i) => origins[i] !== suspect);
    if (classify(without, now, rules).status !== 'FLAKY') return { corroborated: false, restsOn: describeOrigin(suspect) };
  }
  return { corroborated: true };
}

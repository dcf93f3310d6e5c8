import { isNamedReporter, LOCAL_CI_REPORTER, reporterLabel } from '@railyard/domain';
import { classify } from '../classify/classify';
import { DEFAULT_CLASSIFICATION_RULES, type ClassificationRules } from '../classify/rules';
import type { Classification, TestRun } from '../classify/types';
import { corroborationOf } from './evidence';

/**
 * Whether an upload counts as evidence for an automatic quarantine (docs/test-health.md §4, "Who may
 * upload evidence"), the test-health twin of who may report a status (libs/domain/src/status-reporters.ts):
 * with no setting (`null`, the default) every upload counts, as before; once the repository names
 * reporters, only theirs count (a token name, or a reporter id such as `token:<name>`), and the local
 * CI's uploads of the checks it ran always do. An upload whose uploader is unknown (recorded before
 * uploaders were, not the local CI's) is nobody's.
 */
export const countsAsEvidence = (reporters: readonly string[] | null, reporter: string | undefined): boolean => {
  return reporters === null || reporter === LOCAL_CI_REPORTER || isNamedReporter(reporters, reporter);
};

/**
 * Who uploaded a recorded upload: its `reporter`, or for an event from before uploaders were recorded,
 * the local CI when it names a test run (only the runner's uploads do), else unknown.
 */
export const uploaderOf = (upload: { reporter?: string; testRunId?: string }): string | undefined =>
  upload.reporter ?? (upload.testRunId !== undefined ? LOCAL_CI_REPORTER : undefined);

/** Whether a FLAKY test may be quarantined automatically, and when not, why (the end of its reason). */
export interface QuarantineEvidence {
  corroborated: boolean;
  /** Why the flakiness does not count, e.g. `without the runs of PR #61 it would not be flaky`. */
  why?: string;
}

const failedAttempt = (run: TestRun): boolean => run.outcome === 'failed' || run.outcome === 'flaky';

/**
 * The whole quarantine-evidence rule: the runs of uploaders the repository does not name are left
 * out (they stay in the history, the lists and the status), then what is left must still be FLAKY
 * without any single pull request's runs (corroborationOf). `verdict` is the classification of the
 * whole history, which the status shows.
 */
export function quarantineEvidenceOf(
  history: readonly TestRun[],
  now: Date,
  reporters: readonly string[] | null,
  rules: ClassificationRules = DEFAULT_CLASSIFICATION_RULES,
  verdict: Classification = classify(history, now, rules),
): QuarantineEvidence {
  if (verdict.status !== 'FLAKY') return { corroborated: false };
  const counted = history.filter((run) => countsAsEvidence(reporters, run.reporter));
  let basis = verdict;
  if (counted.length < history.length) {
    basis = classify(counted, now, rules);
    if (basis.status !== 'FLAKY') {
      const uncounted = history.filter((run) => failedAttempt(run) && !countsAsEvidence(reporters, run.reporter));
      const who = [...new Set(uncounted.map((run) => reporterLabel(run.reporter)))].sort();
      return {
        corroborated: false,
        why: `without the uploads of ${who.length > 0 ? who.join(', ') : 'uploaders'} it would not be flaky, and the repository does not name them as reporters`,
      };
    }
  }
  const corroboration = corroborationOf(counted, now, rules, basis);
  if (corroboration.corroborated) return { corroborated: true };
  return corroboration.restsOn === null
    ? { corroborated: false }
    : { corroborated: false, why: `without the runs of ${corroboration.restsOn} it would not be flaky` };
}

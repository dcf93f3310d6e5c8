import { classify } from '../classify/classify';
import { pullRequestsImpactedLast7d } from '../classify/impact';
import { DEFAULT_CLASSIFICATION_RULES, type ClassificationRules } from '../classify/rules';
import type { TestRun } from '../classify/types';
import type { RepoRef, StatusRecord, TestImpactChanged, TestStatusChanged } from '../events/events';
import { quarantineEvidenceOf } from '../quarantine/evidence-reporters';

/** What the read model currently says about a test: the evaluation compares against it. */
export interface CurrentHealth extends StatusRecord {
  pullRequestsImpactedLast7d: number;
  /** Whether its FLAKY status is corroborated beyond any single pull request (false for any other status). */
  corroborated: boolean;
}

export interface EvaluationInput {
  repo: RepoRef;
  testId: string;
  current: CurrentHealth;
  history: readonly TestRun[];
  /** Highest stream revision among the runs in `history`. */
  revision: number;
  now: Date;
  rules?: ClassificationRules;
  /** The repository's evidence reporters (TestEvidenceReportersSet); null or absent: every upload counts. */
  evidenceReporters?: readonly string[] | null;
}

/**
 * Re-classifies one test and answers the event to record, or null when the read model already
 * says the same. Reason text and `since` count as changes too: the list endpoints show them.
 */
export function evaluateTest(input: EvaluationInput): TestStatusChanged | TestImpactChanged | null {
  const rules = input.rules ?? DEFAULT_CLASSIFICATION_RULES;
  const at = input.now.toISOString();
  const verdict = classify(input.history, input.now, rules);
  const impacted = pullRequestsImpactedLast7d(input.history, input.now, rules);
  const since = verdict.since ?? input.current.since;
  // Auto-quarantine needs flakiness no single pull request's runs made, from uploaders the repository
  // trusts (issue 25); the reason says when it is missing.
  const corroboration = quarantineEvidenceOf(input.history, input.now, input.evidenceReporters ?? null, rules, verdict);
  const reason = corroboration.why !== undefined ? `${verdict.reason}; not auto-quarantined: ${corroboration.why}` : verdict.reason;
  const { current } = input;
  const basis = { revision: input.revision };
  if (
    verdict.status !== current.status ||
    reason !== current.reason ||
    since !== current.since ||
    corroboration.corroborated !== current.corroborated
  ) {
    return {
      type: 'TestStatusChanged',
      data: {
        repo: input.repo,
        testId: input.testId,
        previous: { status: current.status, reason: current.reason, since: current.since },
        status: verdict.status,
        reason,
        since,
        monitors: verdict.monitors,
        pullRequestsImpactedLast7d: impacted,
        basis,
        corroborated: corroboration.corroborated,
        at,
      },
    };
  }
  if (impacted !== current.pullRequestsImpactedLast7d) {
    return {
      type: 'TestImpactChanged',
      data: {
        repo: input.repo,
        testId: input.testId,
        previous: current.pullRequestsImpactedLast7d,
        pullRequestsImpactedLast7d: impacted,
        basis,
        at,
      },
    };
  }
  return null;
}

/** Longest window any monitor looks back over: a test without a failure inside it cannot be flagged by a pass. */
export function lookbackMs(rules: ClassificationRules = DEFAULT_CLASSIFICATION_RULES): number {
  const hours = Math.max(
    rules.passOnRetry.pairWindowHours,
    rules.failureRate.windowHours,
    rules.brokenRate.windowHours,
    rules.brokenOnPullRequests.windowHours,
  );
  return hours * 3_600_000;
}

/**
 * True when a new passing run cannot change a test's verdict: it is HEALTHY with no PR impact and
 * has not failed within the longest monitor window. Skipping those keeps an all-green upload of
 * 50,000 cases from re-classifying 50,000 tests.
 */
export function passCannotChange(
  current: CurrentHealth,
  lastFailedAt: string | null,
  now: Date,
  rules: ClassificationRules = DEFAULT_CLASSIFICATION_RULES,
): boolean {
  if (current.status !== 'HEALTHY' || current.pullRequestsImpactedLast7d !== 0) return false;
  if (lastFailedAt === null) return true;
  const t = Date.parse(lastFailedAt);
  return Number.isFinite(t) && now.getTime() - t > lookbackMs(rules);
}

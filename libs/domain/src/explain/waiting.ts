import { inMergeabilityWindow, mergeabilityWindowSize } from '../mergeability-window';
import type { ExplainInput, WaitingOn } from './types';

const FIRST_NAMED = 5;

const prList = (ahead: ExplainInput['ahead']): string => {
  const named = ahead.first.slice(0, FIRST_NAMED).map((n) => `#${n}`);
  const more = ahead.count - named.length;
  return `${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
};

const queueBlock = (input: ExplainInput): WaitingOn[] => {
  switch (input.queue.state) {
    case 'paused':
      return [{ kind: 'queue_paused', message: 'the queue is paused: an admin must resume it' }];
    case 'draining':
      return [{ kind: 'queue_draining', message: 'the queue is draining: it starts no new tests until it is resumed' }];
    case 'switching_modes':
      return [{ kind: 'queue_switching_modes', message: 'the queue is switching modes: it waits for the runs in flight to finish' }];
    default:
      return [];
  }
};

/**
 * The engine asks the code host at once only for the first PRs of the queue; behind them it asks a few
 * per second (docs/decisions.md D38), so a PR further back may not have been asked yet.
 */
const mergeabilityUnknown = (input: ExplainInput): WaitingOn => {
  const { settings } = input.queue;
  if (inMergeabilityWindow(input.ahead.count, settings))
    return { kind: 'mergeability', message: 'mergeability unknown: the code host has not worked out whether the PR merges cleanly' };
  return {
    kind: 'mergeability',
    message:
      `mergeability unknown: not asked at once, as ${input.ahead.count} PR(s) are ahead; the engine asks the code host when ` +
      `the PR is among the first ${mergeabilityWindowSize(settings)} of the queue, or earlier at its background rate`,
  };
};

const readinessBlock = (input: ExplainInput): WaitingOn[] => {
  const { readiness: r, headSha } = input.pr;
  const out: WaitingOn[] = [];
  if (!r.doesBaseBranchMatch) out.push({ kind: 'base_branch', message: "the PR's base branch is not the queue's branch: retarget it" });
  if (r.mergeability === 'unspecified' || r.mergeability === 'in_progress') out.push(mergeabilityUnknown(input));
  if (r.mergeability === 'not_mergeable') out.push({ kind: 'merge_conflict', message: 'the PR conflicts with its base branch: rebase it' });
  if (r.requiresImpactedTargets && !r.hasImpactedTargets)
    out.push({ kind: 'impacted_targets', message: `impacted targets not uploaded for head ${headSha.slice(0, 12)}` });
  return out;
};

const aheadBlock = (input: ExplainInput, what: string): WaitingOn[] =>
  input.ahead.count === 0
    ? []
    : [{ kind: 'prs_ahead', message: `${input.ahead.count} PR(s) ahead ${what}: ${prList(input.ahead)}`, prNumbers: input.ahead.first }];

/** The checks the PR's current run still needs: required ones not yet passed or failed (every reported one if none is required). */
const missingChecks = (input: ExplainInput): string[] => {
  const run = input.run;
  if (!run || run.status !== 'testing') return [];
  const seen = new Map(run.statuses.map((s) => [s.context, s.state]));
  const names = run.requiredStatuses.length > 0 ? run.requiredStatuses : [...seen.keys()];
  return names.filter((n) => {
    const state = seen.get(n);
    return state === undefined || state === 'pending';
  });
};

/** What the PR waits for now; empty once it is merged, failed or cancelled. */
export const waitingOnOf = (input: ExplainInput): WaitingOn[] => {
  switch (input.pr.state) {
    case 'not_ready':
      return [...readinessBlock(input), ...queueBlock(input)];
    case 'pending': {
      const blocked = [...queueBlock(input), ...aheadBlock(input, 'must settle first')];
      return blocked.length > 0 ? blocked : [{ kind: 'engine', message: 'the merge engine to start a test run' }];
    }
    case 'testing': {
      const missing = missingChecks(input);
      const runId = input.run?.testRunId ?? input.pr.lastTestRunId;
      return [
        {
          kind: 'required_statuses',
          message:
            missing.length > 0
              ? `required statuses missing on run ${runId ?? '?'}: ${missing.join(', ')}`
              : `run ${runId ?? '?'} to report its result`,
          checks: missing,
        },
      ];
    }
    case 'tests_passed': {
      const ahead = aheadBlock(input, 'must merge first');
      return ahead.length > 0 ? ahead : [{ kind: 'merge', message: 'the merge engine to merge it' }];
    }
    case 'pending_failure': {
      const ahead = aheadBlock(input, 'must settle before the failure is blamed');
      return ahead.length > 0
        ? ahead
        : [{ kind: 'failure_confirmation', message: 'the queue to confirm the failure (a retest or a bisection)' }];
    }
    default:
      return [];
  }
};

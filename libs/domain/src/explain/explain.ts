import { isTerminal } from '../events';
import { reporterLabel, type NotCountedWhy } from '../status-reporters';
import { failedChecksOf, reasonSentence } from './reasons';
import type { ExplainInput, ExplainNote, ExplainQueue, ExplainRun, ExplainedCheck, ExplainedPr, Explanation, LastTestRun } from './types';
import { waitingOnOf } from './waiting';

const lastTestRunOf = (input: ExplainInput): LastTestRun | undefined => {
  const run = input.run;
  if (!run) return undefined;
  const checks: ExplainedCheck[] = run.statuses.map((s) => ({ name: s.context, state: s.state, ...(s.url ? { url: s.url } : {}) }));
  const failedNames = new Set(run.status === 'testing' ? [] : failedChecksOf(input.pr.stateReason, run));
  const failedChecks = checks.filter((c) => failedNames.has(c.name) || c.state === 'failure' || c.state === 'error');
  return { id: run.testRunId, status: run.status, testBranch: run.testBranch, checks, failedChecks };
};

const configNote = (input: ExplainInput): ExplainNote[] => {
  const notUsed = input.run?.configNotUsed?.find((x) => x.prNumber === input.pr.prNumber);
  if (!notUsed || notUsed.files.length === 0) return [];
  const base = input.pr.baseBranch ?? 'the target branch';
  const files = notUsed.files.join(' and ');
  return [
    {
      kind: 'config_not_used',
      message: `this PR changes ${files}; run ${input.run?.testRunId ?? '?'} tested it with ${base}'s configuration (the change takes effect once it has merged)`,
      files: [...notUsed.files],
    },
  ];
};

const WHY: Record<NotCountedWhy, (context: string) => string> = {
  LOCAL_CI_ONLY: (context) => `only the local CI reports \`${context}\``,
  REPORTER_NOT_ALLOWED: (context) => `the queue names who may report \`${context}\` (statusReporters)`,
};

const notCountedNotes = (input: ExplainInput): ExplainNote[] =>
  (input.run?.notCounted ?? []).map((x) => ({
    kind: 'status_not_counted',
    message: `\`${x.context}\` ${x.state} from ${reporterLabel(x.reporter)} on run ${input.run?.testRunId ?? '?'} was not counted: ${WHY[x.why](x.context)}`,
    checks: [x.context],
  }));

/**
 * Why a PR is in its state, what it waits for now and its last run with the failed checks' logs: the
 * one rule the API, the CLI and the dashboard all show (docs/api.md, "Explanations").
 */
export const explainPr = (input: ExplainInput): Explanation => {
  const { pr, run } = input;
  const reason = pr.stateReason;
  const lastTestRun = lastTestRunOf(input);
  const notes = [...configNote(input), ...notCountedNotes(input)];
  return {
    stateReason: {
      code: reason?.code ?? 'UNKNOWN',
      message: reasonSentence(pr.state, reason, run),
      ...(reason?.detail ? { detail: reason.detail } : {}),
      ...((reason?.testRunId ?? run?.testRunId) ? { testRunId: reason?.testRunId ?? run?.testRunId } : {}),
    },
    waitingOn: waitingOnOf(input),
    ...(lastTestRun ? { lastTestRun } : {}),
    ...(notes.length > 0 ? { notes } : {}),
  };
};

const FIRST_AHEAD = 5;

/**
 * Explains every PR of a queue given in queue order, in one pass: each sees the active PRs before it
 * (the first few by number, and how many), so a queue of thousands costs linear time.
 */
export const explainQueue = <P extends ExplainedPr>(
  queue: ExplainQueue,
  prsInOrder: readonly P[],
  runOf: (pr: P) => ExplainRun | undefined,
): Explanation[] => {
  const first: number[] = [];
  let count = 0;
  return prsInOrder.map((pr) => {
    const run = runOf(pr);
    const explained = explainPr({ pr, queue, ahead: { count, first: [...first] }, ...(run ? { run } : {}) });
    if (!isTerminal(pr.state)) {
      count += 1;
      if (first.length < FIRST_AHEAD) first.push(pr.prNumber);
    }
    return explained;
  });
};

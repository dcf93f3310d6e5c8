import {
  explainFromState,
  planOrder,
  type CancelReason,
  type Entry,
  type FailReason,
  type QueueState,
  type TestRun,
} from '@railyard/domain';

/**
 * What the `Railyard (<base>)` check run on a PR says (docs/github.md, "The check run"). Pure: the
 * publisher renders it from the queue's folded state and writes it only when it changed.
 */
export interface CheckRunView {
  name: string;
  headSha: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion?: 'success' | 'failure' | 'cancelled';
  title: string;
  summary: string;
  detailsUrl?: string;
}

/** What the event that ended a PR said, which the folded state does not keep. */
export interface Ending {
  merged?: { mergeSha: string };
  failed?: { reason: FailReason; detail: string; failing: { context: string; url?: string }[] };
  cancelled?: { reason: CancelReason };
}

export const checkRunName = (branch: string): string => `Railyard (${branch})`;

const CANCEL_TEXT: Record<CancelReason, string> = {
  API_REQUESTED: 'cancelled on request',
  USER_REQUESTED: 'cancelled by a user',
  PR_CLOSED: 'the pull request was closed',
  PR_PUSHED_TO: 'the pull request was pushed to after it was queued; queue it again to test the new head',
  PR_BASE_BRANCH_CHANGED: 'the pull request now targets another branch',
  PR_MERGED_INTO_OTHER_BRANCH: 'the pull request was merged into another branch',
};

const FAIL_TEXT: Record<FailReason, string> = {
  TEST_RUN_REQUIRED_STATUS_FAILED: 'a required check failed',
  TEST_RUN_TIMEOUT: 'the required checks did not all report in time',
  TEST_RUN_FAILED_BY_OPTIMIZATION: 'a run that included it failed',
  START_TEST_RUN_MERGE_CONFLICT: 'it conflicts with its base or a PR ahead of it',
  START_TEST_RUN_NO_REQUIRED_STATUSES: 'no required checks are configured',
  START_TEST_RUN_CONFIG_PARSING_FAILURE: 'the repository configuration could not be read',
  PR_UPDATED_AT_MERGE_TIME: 'the pull request changed while it was being merged',
  GITHUB_API_MERGE_PR_FAILED: 'the merge could not be made',
};

const link = (text: string, url: string | undefined): string => (url ? `[${text}](${url})` : text);

/** The failing checks of a run and their links, from the statuses it recorded. */
export const failingChecksOf = (run: TestRun | undefined): { context: string; url?: string }[] => {
  if (!run) return [];
  const failing = run.failedContexts.length
    ? run.failedContexts
    : Object.keys(run.statuses).filter((c) => ['failure', 'error'].includes(run.statuses[c]?.state ?? ''));
  return failing.map((context) => {
    const url = run.statuses[context]?.url;
    return url ? { context, url } : { context };
  });
};

/** What the PR waits for, in the domain's words (the same explanation the API, CLI and dashboard show). */
const waitingOn = (s: QueueState, e: Entry): string[] => (explainFromState(s, e.prNumber)?.waitingOn ?? []).map((w) => w.message);

const statusLines = (run: TestRun): string[] =>
  run.requiredStatuses.map((context) => {
    const seen = run.statuses[context];
    return `- ${link(context, seen?.url)}: ${seen?.state ?? 'not reported yet'}`;
  });

/** Renders the check run of `e`, an entry of `s`, with links under `publicUrl` when it is known. */
export const renderCheckRun = (s: QueueState, e: Entry, ending: Ending, publicUrl?: string): CheckRunView => {
  const prPage = publicUrl
    ? `${publicUrl}/repos/${[s.repo.host, s.repo.owner, s.repo.name].map(encodeURIComponent).join('/')}/pulls/${e.prNumber}`
    : undefined;
  const base = { name: checkRunName(s.branch), headSha: e.headSha, ...(prPage ? { detailsUrl: prPage } : {}) };
  const more = prPage ? `\n\n${link('Details in Railyard', prPage)}` : '';
  switch (e.state) {
    case 'not_ready': {
      const reasons = waitingOn(s, e);
      return {
        ...base,
        status: 'queued',
        title: 'Waiting: not ready to merge',
        summary: `Queued, but not ready. Waiting on: ${reasons.length ? reasons.join('; ') : 'GitHub'}.${more}`,
      };
    }
    case 'pending': {
      const position = planOrder(s).findIndex((x) => x.prNumber === e.prNumber) + 1;
      const reasons = waitingOn(s, e);
      return {
        ...base,
        status: 'queued',
        title: position > 0 ? `Queued at position ${position}` : 'Queued',
        summary: `Priority ${e.priorityName} (${e.priorityValue}).${reasons.length ? ` Waiting on: ${reasons.join('; ')}.` : ''}${more}`,
      };
    }
    case 'testing':
    case 'tests_passed':
    case 'pending_failure': {
      const run = e.testRunId ? s.runs.get(e.testRunId) : undefined;
      const title =
        e.state === 'tests_passed' ? 'Tests passed, merging' : e.state === 'pending_failure' ? 'A check failed; confirming' : 'Testing';
      const lines = run ? [`Test branch \`${run.testBranch}\` at ${run.testBranchSha.slice(0, 12)}.`, '', ...statusLines(run)] : [];
      return { ...base, status: 'in_progress', title, summary: `${lines.join('\n')}${more}`.trim() };
    }
    case 'merged':
      return {
        ...base,
        status: 'completed',
        conclusion: 'success',
        title: 'Merged',
        summary: `Merged${ending.merged ? ` as ${ending.merged.mergeSha}` : ''}: the tested commit is now the head of ${s.branch}.${more}`,
      };
    case 'failed': {
      const f = ending.failed;
      const failing = (f?.failing ?? []).map((c) => `- ${link(c.context, c.url)}`);
      const why = f ? FAIL_TEXT[f.reason] : 'it failed';
      return {
        ...base,
        status: 'completed',
        conclusion: 'failure',
        title: `Failed: ${why}`,
        summary:
          [`Failed: ${why}.`, f?.detail ?? '', failing.length ? `Failing checks:\n${failing.join('\n')}` : '']
            .filter(Boolean)
            .join('\n\n') + more,
      };
    }
    case 'cancelled': {
      const why = ending.cancelled ? CANCEL_TEXT[ending.cancelled.reason] : 'cancelled';
      return { ...base, status: 'completed', conclusion: 'cancelled', title: `Cancelled: ${why}`, summary: `Cancelled: ${why}.${more}` };
    }
  }
};

export const sameView = (a: CheckRunView, b: CheckRunView): boolean =>
  a.name === b.name &&
  a.headSha === b.headSha &&
  a.status === b.status &&
  a.conclusion === b.conclusion &&
  a.title === b.title &&
  a.summary === b.summary &&
  a.detailsUrl === b.detailsUrl;

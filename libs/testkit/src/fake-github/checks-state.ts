import type { CheckRun, CommitStatus, FakeRepo } from './model';
import type { FakeState } from './state';

/** What GitHub reads from statuses, check runs and branch rules when it judges a commit. */

/** The newest status per context on a commit, newest first (GitHub's combined view). */
export const latestStatuses = (state: FakeState, repoId: number, sha: string): CommitStatus[] => {
  const latest = new Map<string, CommitStatus>();
  for (const status of state.statuses) {
    if (status.repoId !== repoId || status.sha !== sha) continue;
    const seen = latest.get(status.context);
    if (!seen || seen.id < status.id) latest.set(status.context, status);
  }
  return [...latest.values()].sort((a, b) => b.id - a.id);
};

export const checkRunsOn = (state: FakeState, repoId: number, sha: string): CheckRun[] =>
  [...state.checkRuns.values()].filter((run) => run.repoId === repoId && run.headSha === sha).sort((a, b) => b.id - a.id);

/** GitHub's `filter=latest`: the newest run of each name from each app. */
export const latestCheckRuns = (runs: CheckRun[]): CheckRun[] => {
  const latest = new Map<string, CheckRun>();
  for (const run of runs) {
    const key = `${run.appId}\0${run.name}`;
    const seen = latest.get(key);
    if (!seen || seen.id < run.id) latest.set(key, run);
  }
  return [...latest.values()].sort((a, b) => b.id - a.id);
};

export interface RequiredCheck {
  context: string;
  /** Only a check run or status from this App counts, when set. */
  appId?: number;
}

/** Required checks of a branch: its classic protection's contexts and every ruleset that names it. */
export const requiredChecks = (repo: FakeRepo, branch: string): { checks: RequiredCheck[]; strict: boolean } => {
  const protection = repo.protection.get(branch);
  const checks: RequiredCheck[] = (protection?.contexts ?? []).map((context) => ({ context }));
  let strict = protection?.strict ?? false;
  for (const ruleset of repo.rulesets) {
    if (!ruleset.branches.includes(branch)) continue;
    strict ||= ruleset.strict;
    for (const check of ruleset.requiredChecks) checks.push({ context: check.context, appId: check.integrationId });
  }
  return { checks, strict };
};

const GOOD_CONCLUSIONS = new Set(['success', 'neutral', 'skipped']);

/** Whether a required check passed on `sha`: a successful status of that context or a successful check run of that name. */
export const checkPassed = (state: FakeState, repoId: number, sha: string, check: RequiredCheck): boolean => {
  const status = latestStatuses(state, repoId, sha).find(
    (s) => s.context === check.context && (check.appId === undefined || s.creator.id === state.apps.get(check.appId)?.bot.id),
  );
  if (status?.state === 'success') return true;
  return latestCheckRuns(checkRunsOn(state, repoId, sha)).some(
    (run) =>
      run.name === check.context &&
      (check.appId === undefined || run.appId === check.appId) &&
      run.status === 'completed' &&
      GOOD_CONCLUSIONS.has(run.conclusion ?? ''),
  );
};

/** Whether anything reported on `sha` failed (a failing status or a failed check run). */
export const anythingFailed = (state: FakeState, repoId: number, sha: string): boolean =>
  latestStatuses(state, repoId, sha).some((s) => s.state === 'failure' || s.state === 'error') ||
  latestCheckRuns(checkRunsOn(state, repoId, sha)).some(
    (run) => run.status === 'completed' && !GOOD_CONCLUSIONS.has(run.conclusion ?? 'neutral'),
  );

import { checkRunsOn, latestCheckRuns } from './checks-state';
import type { FakeCore } from './core';
import { readCommit } from './git';
import type {
  CheckConclusion,
  CheckRun,
  CheckStatus,
  CheckSuite,
  CommitStatus,
  FakeApp,
  FakePull,
  FakeRepo,
  FakeUser,
  StatusState,
} from './model';
import { checkRunPayload, checkSuitePayload, statusPayload } from './payloads';
import { checkSuite } from './representations/checks';

/** Creating statuses and check runs, shared by the REST routes and the test controls (a CI reporting). */

/** Open pull requests whose head is `sha` on a branch of `repo` itself (GitHub leaves forks' PRs out here). */
export const pullsForSha = (core: FakeCore, repo: FakeRepo, sha: string): FakePull[] =>
  core.state.pullsOf(repo.id).filter((pr) => pr.state === 'open' && pr.headSha === sha && pr.headRepoId === repo.id);

const branchOf = (repo: FakeRepo, sha: string): string | null => [...repo.knownBranches].find(([, tip]) => tip === sha)?.[0] ?? null;

export const createStatus = async (
  core: FakeCore,
  repo: FakeRepo,
  input: { sha: string; state: StatusState; context: string; description?: string | null; targetUrl?: string | null; creator: FakeUser },
): Promise<CommitStatus> => {
  const now = core.state.iso();
  const status: CommitStatus = {
    id: core.state.nextId(),
    repoId: repo.id,
    sha: input.sha,
    state: input.state,
    context: input.context,
    description: input.description ?? null,
    targetUrl: input.targetUrl ?? null,
    creator: input.creator,
    createdAt: now,
    updatedAt: now,
  };
  core.state.statuses.push(status);
  const commit = await readCommit(repo.gitDir, input.sha);
  if (commit !== null) {
    const branches = [...repo.knownBranches]
      .filter(([, tip]) => tip === input.sha)
      .slice(0, 10)
      .map(([name, sha]) => ({ name, sha, protected: repo.protection.has(name) }));
    core.emitFor(repo, 'status', null, (inst) => statusPayload(status, commit, branches, inst, core.view));
  }
  return status;
};

export const ensureSuite = (core: FakeCore, repo: FakeRepo, appId: number, sha: string): { suite: CheckSuite; created: boolean } => {
  const existing = [...core.state.checkSuites.values()].find((s) => s.repoId === repo.id && s.appId === appId && s.headSha === sha);
  if (existing) return { suite: existing, created: false };
  const now = core.state.iso();
  const suite: CheckSuite = {
    id: core.state.nextId(),
    repoId: repo.id,
    appId,
    headSha: sha,
    headBranch: branchOf(repo, sha),
    createdAt: now,
    updatedAt: now,
    completionSent: false,
  };
  core.state.checkSuites.set(suite.id, suite);
  return { suite, created: true };
};

/** The suite's runs as GitHub counts them: the newest of each name. */
export const suiteRuns = (core: FakeCore, suite: CheckSuite): CheckRun[] =>
  latestCheckRuns(checkRunsOn(core.state, suite.repoId, suite.headSha).filter((run) => run.suiteId === suite.id));

export const emitSuiteEvent = async (core: FakeCore, suite: CheckSuite, action: string, sender: FakeUser): Promise<void> => {
  const repo = core.state.repo(suite.repoId);
  const head = await readCommit(repo.gitDir, suite.headSha);
  if (head === null) return;
  const runs = suiteRuns(core, suite);
  const pulls = pullsForSha(core, repo, suite.headSha);
  core.emitFor(repo, 'check_suite', action, (inst) => checkSuitePayload(action, suite, runs, head, pulls, inst, sender, core.view));
};

export const emitRunEvent = async (
  core: FakeCore,
  run: CheckRun,
  action: string,
  sender: FakeUser,
  requestedAction?: string,
): Promise<void> => {
  const repo = core.state.repo(run.repoId);
  const suite = core.state.checkSuites.get(run.suiteId) as CheckSuite;
  const head = await readCommit(repo.gitDir, run.headSha);
  if (head === null) return;
  const pulls = pullsForSha(core, repo, run.headSha);
  const suiteView = checkSuite(suite, suiteRuns(core, suite), head, pulls, core.view);
  core.emitFor(repo, 'check_run', action, (inst) =>
    checkRunPayload(action, run, suiteView, pulls, inst, sender, core.view, requestedAction),
  );
};

/** After a run completed: the suite completes when every run in it has. */
const afterRunChanged = async (core: FakeCore, run: CheckRun, sender: FakeUser): Promise<void> => {
  const suite = core.state.checkSuites.get(run.suiteId) as CheckSuite;
  suite.updatedAt = core.state.iso();
  const runs = suiteRuns(core, suite);
  const complete = runs.length > 0 && runs.every((r) => r.status === 'completed');
  if (!complete) {
    suite.completionSent = false;
    return;
  }
  if (suite.completionSent) return;
  suite.completionSent = true;
  await emitSuiteEvent(core, suite, 'completed', sender);
};

export interface CheckRunInput {
  name: string;
  headSha: string;
  status?: CheckStatus;
  conclusion?: CheckConclusion | null;
  detailsUrl?: string | null;
  externalId?: string | null;
  startedAt?: string | null;
  completedAt?: string | null;
  output?: { title?: string | null; summary?: string | null; text?: string | null };
  actions?: CheckRun['actions'];
}

/** A conclusion completes a run; completing without one is refused by the caller. */
const normalise = (core: FakeCore, run: CheckRun): void => {
  if (run.conclusion !== null) run.status = 'completed';
  if (run.status === 'completed') run.completedAt ??= core.state.iso();
  // GitHub stamps started_at when the run is created, whatever its status.
  run.startedAt ??= core.state.iso();
};

export const createCheckRun = async (core: FakeCore, repo: FakeRepo, app: FakeApp, input: CheckRunInput): Promise<CheckRun> => {
  const { suite } = ensureSuite(core, repo, app.id, input.headSha);
  const run: CheckRun = {
    id: core.state.nextId(),
    suiteId: suite.id,
    repoId: repo.id,
    appId: app.id,
    name: input.name,
    headSha: input.headSha,
    status: input.status ?? 'queued',
    conclusion: input.conclusion ?? null,
    detailsUrl: input.detailsUrl ?? null,
    externalId: input.externalId ?? null,
    startedAt: input.startedAt ?? null,
    completedAt: input.completedAt ?? null,
    output: { title: input.output?.title ?? null, summary: input.output?.summary ?? null, text: input.output?.text ?? null },
    actions: input.actions ?? [],
  };
  normalise(core, run);
  core.state.checkRuns.set(run.id, run);
  await emitRunEvent(core, run, 'created', app.bot);
  if (run.status === 'completed') await emitRunEvent(core, run, 'completed', app.bot);
  await afterRunChanged(core, run, app.bot);
  return run;
};

export const updateCheckRun = async (core: FakeCore, run: CheckRun, patch: Partial<CheckRunInput>, sender: FakeUser): Promise<CheckRun> => {
  const wasCompleted = run.status === 'completed';
  if (patch.name !== undefined) run.name = patch.name;
  if (patch.status !== undefined) run.status = patch.status;
  if (patch.conclusion !== undefined) run.conclusion = patch.conclusion;
  if (patch.detailsUrl !== undefined) run.detailsUrl = patch.detailsUrl;
  if (patch.externalId !== undefined) run.externalId = patch.externalId;
  if (patch.startedAt !== undefined) run.startedAt = patch.startedAt;
  if (patch.completedAt !== undefined) run.completedAt = patch.completedAt;
  if (patch.output !== undefined) run.output = { ...run.output, ...patch.output };
  if (patch.actions !== undefined) run.actions = patch.actions;
  normalise(core, run);
  if (!wasCompleted && run.status === 'completed') await emitRunEvent(core, run, 'completed', sender);
  await afterRunChanged(core, run, sender);
  return run;
};

/**
 * `POST check-suites/{id}/rerequest`: GitHub resets the suite to queued and tells the App that owns
 * it (`check_suite.rerequested`), which runs its checks again on the same commit; the runs already
 * there stay as they are until that App reports new ones.
 */
export const rerequestSuite = async (core: FakeCore, repo: FakeRepo, suite: CheckSuite, sender: FakeUser): Promise<void> => {
  suite.completionSent = false;
  suite.updatedAt = core.state.iso();
  if (suite.appId === core.app.id) await emitSuiteEvent(core, suite, 'rerequested', sender);
  for (const listener of core.suiteRerequestListeners) listener(repo, suite);
};

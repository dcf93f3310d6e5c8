import { createCheckRun, createStatus, updateCheckRun } from '../check-actions';
import type { FakeCore } from '../core';
import type { CheckConclusion, CheckRun, CheckSuite, CommitStatus, FakeRepo, StatusState, WorkflowRun } from '../model';
import { repoNamed } from './repos';

/**
 * A CI system next to the fake GitHub: it reports as its own App (check runs) or user (statuses),
 * either when a test tells it to or on its own for pushed branches it is configured to build.
 */

/** `never`: the check never reports at all; `stuck`: it starts and never finishes. */
export type CiOutcome = 'success' | 'failure' | 'never' | 'stuck';

export interface CiCheck {
  name: string;
  /** Report as a check run (default) or as a commit status. */
  via?: 'check_run' | 'status';
  /** `attempt`: 1 on the push, then one more for each re-request of the check's suite on the same commit. */
  outcome?: CiOutcome | ((build: { repo: string; branch: string; sha: string; attempt: number }) => CiOutcome | Promise<CiOutcome>);
  /** Time from the push to the result. */
  delayMs?: number;
  detailsUrl?: string;
}

export interface CiConfig {
  /** Which pushed branches it builds. */
  branches: (branch: string) => boolean;
  checks: CiCheck[];
}

export class FakeCi {
  private readonly configs = new Map<number, CiConfig>();
  /** Builds of each check per commit, so a re-run knows its attempt. */
  private readonly attempts = new Map<string, number>();

  constructor(private readonly core: FakeCore) {
    core.branchListeners.push((repo, branch, sha) => this.onPush(repo, branch, sha));
    core.suiteRerequestListeners.push((repo, suite) => this.onRerequest(repo, suite));
  }

  /** Builds pushed branches of `repo` that `config.branches` accepts; null stops building. */
  configure(repo: string, config: CiConfig | null): void {
    const found = repoNamed(this.core, repo);
    if (config === null) this.configs.delete(found.id);
    else this.configs.set(found.id, config);
  }

  /**
   * A GitHub Actions run of `repo`'s workflow for PR `pr`'s head, as a `pull_request` event starts one
   * (for a PR from a fork too: the run is the base repository's, its head the fork's).
   */
  startWorkflowRun(input: { repo: string; pr: number; event?: WorkflowRun['event']; name?: string }): WorkflowRun {
    const repo = repoNamed(this.core, input.repo);
    const pull = this.core.state.pull(repo.id, input.pr);
    if (!pull) throw new Error(`no PR #${input.pr} in ${input.repo}`);
    const state = this.core.state;
    const now = state.iso();
    const run: WorkflowRun = {
      id: state.nextId(),
      repoId: repo.id,
      workflowId: 7,
      name: input.name ?? 'CI',
      path: '.github/workflows/ci.yml',
      event: input.event ?? 'pull_request',
      headRepoId: pull.headRepoId,
      headBranch: pull.headRef,
      headSha: pull.headSha,
      runNumber: state.workflowRuns.size + 1,
      runAttempt: 1,
      status: 'in_progress',
      conclusion: null,
      actor: pull.user,
      createdAt: now,
      updatedAt: now,
    };
    state.workflowRuns.set(run.id, run);
    return run;
  }

  reportStatus(input: {
    repo: string;
    sha: string;
    context: string;
    state: StatusState;
    targetUrl?: string;
    description?: string;
  }): Promise<CommitStatus> {
    return createStatus(this.core, repoNamed(this.core, input.repo), { ...input, creator: this.core.ciApp.bot });
  }

  reportCheckRun(input: {
    repo: string;
    sha: string;
    name: string;
    status?: CheckRun['status'];
    conclusion?: CheckConclusion;
    detailsUrl?: string;
  }): Promise<CheckRun> {
    return createCheckRun(this.core, repoNamed(this.core, input.repo), this.core.ciApp, {
      name: input.name,
      headSha: input.sha,
      status: input.status ?? (input.conclusion === undefined ? 'in_progress' : 'completed'),
      conclusion: input.conclusion ?? null,
      detailsUrl: input.detailsUrl ?? null,
    });
  }

  completeCheckRun(id: number, conclusion: CheckConclusion): Promise<CheckRun> {
    const run = this.core.state.checkRuns.get(id);
    if (!run) throw new Error(`no check run ${id}`);
    return updateCheckRun(this.core, run, { status: 'completed', conclusion }, this.core.ciApp.bot);
  }

  private onPush(repo: FakeRepo, branch: string, sha: string): void {
    const config = this.configs.get(repo.id);
    if (!config?.branches(branch)) return;
    const fullName = `${repo.owner.login}/${repo.name}`;
    for (const check of config.checks) {
      this.core.later(0, () => this.build(fullName, branch, sha, check));
    }
  }

  /** Its own suite re-requested (GitHub's check_suite.rerequested to this App): its check runs run again on the commit. */
  private onRerequest(repo: FakeRepo, suite: CheckSuite): void {
    const config = this.configs.get(repo.id);
    if (suite.appId !== this.core.ciApp.id || !config) return;
    const fullName = `${repo.owner.login}/${repo.name}`;
    for (const check of config.checks.filter((c) => c.via !== 'status'))
      this.core.later(0, () => this.build(fullName, suite.headBranch ?? '', suite.headSha, check));
  }

  private async build(repo: string, branch: string, sha: string, check: CiCheck): Promise<void> {
    const key = `${repo}\0${sha}\0${check.name}`;
    const attempt = (this.attempts.get(key) ?? 0) + 1;
    this.attempts.set(key, attempt);
    const outcome =
      typeof check.outcome === 'function' ? await check.outcome({ repo, branch, sha, attempt }) : (check.outcome ?? 'success');
    if (outcome === 'never') return;
    const first = check.detailsUrl ?? `https://ci.example.test/${encodeURIComponent(repo)}/${sha}/${encodeURIComponent(check.name)}`;
    // Each attempt has its own page, as a CI's job runs do.
    const targetUrl = attempt === 1 ? first : `${first}?attempt=${attempt}`;
    if (check.via === 'status') {
      await this.reportStatus({ repo, sha, context: check.name, state: 'pending', targetUrl });
      if (outcome === 'stuck') return;
      this.core.later(check.delayMs ?? 0, async () => {
        await this.reportStatus({ repo, sha, context: check.name, state: outcome, targetUrl });
      });
      return;
    }
    const run = await this.reportCheckRun({ repo, sha, name: check.name, status: 'in_progress', detailsUrl: targetUrl });
    if (outcome === 'stuck') return;
    this.core.later(check.delayMs ?? 0, async () => {
      await this.completeCheckRun(run.id, outcome);
    });
  }
}

import type {
  CheckRun,
  CheckSuite,
  CommitStatus,
  FakeApp,
  FakeInstallation,
  FakePull,
  FakeRepo,
  FakeUser,
  InstallationToken,
  IssueComment,
  WorkflowRun,
} from './model';

/** The fake's records, with lookups and id counters; rules about them live in the route and control modules. */
export class FakeState {
  readonly users = new Map<string, FakeUser>();
  readonly apps = new Map<number, FakeApp>();
  readonly installations = new Map<number, FakeInstallation>();
  readonly repos = new Map<number, FakeRepo>();
  readonly pulls = new Map<number, FakePull[]>();
  readonly statuses: CommitStatus[] = [];
  readonly checkSuites = new Map<number, CheckSuite>();
  readonly checkRuns = new Map<number, CheckRun>();
  readonly workflowRuns = new Map<number, WorkflowRun>();
  readonly comments = new Map<number, IssueComment>();
  readonly tokens = new Map<string, InstallationToken>();
  private lastId = 1000;

  constructor(readonly now: () => Date) {}

  nextId(): number {
    this.lastId += 1;
    return this.lastId;
  }

  iso(): string {
    return this.now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  }

  user(login: string, type: FakeUser['type'] = 'User'): FakeUser {
    const existing = this.users.get(login.toLowerCase());
    if (existing) return existing;
    const id = this.nextId();
    // GitHub's no-reply address; a bot's drops the `[bot]` suffix here so that the address stays a valid e-mail.
    const user: FakeUser = { id, login, type, email: `${id}+${login.replace(/\[bot\]$/, '-bot')}@users.noreply.github.fake` };
    this.users.set(login.toLowerCase(), user);
    return user;
  }

  repoByName(owner: string, name: string): FakeRepo | undefined {
    for (const repo of this.repos.values()) {
      if (repo.owner.login.toLowerCase() === owner.toLowerCase() && repo.name.toLowerCase() === name.toLowerCase()) return repo;
    }
    return undefined;
  }

  repo(id: number): FakeRepo {
    const repo = this.repos.get(id);
    if (!repo) throw new Error(`no repository ${id}`);
    return repo;
  }

  pullsOf(repoId: number): FakePull[] {
    let list = this.pulls.get(repoId);
    if (!list) {
      list = [];
      this.pulls.set(repoId, list);
    }
    return list;
  }

  pull(repoId: number, number: number): FakePull | undefined {
    return this.pullsOf(repoId).find((pr) => pr.number === number);
  }

  /** Issues and pull requests share one sequence of numbers per repository. */
  nextIssueNumber(repoId: number): number {
    const numbers = this.pullsOf(repoId).map((pr) => pr.number);
    return numbers.length === 0 ? 1 : Math.max(...numbers) + 1;
  }

  installationFor(appId: number, repo: FakeRepo): FakeInstallation | undefined {
    for (const installation of this.installations.values()) {
      if (installation.appId !== appId || installation.account.id !== repo.owner.id) continue;
      if (installation.repositorySelection === 'all' || installation.repoIds.has(repo.id)) return installation;
    }
    return undefined;
  }

  installationRepos(installation: FakeInstallation): FakeRepo[] {
    return [...this.repos.values()].filter(
      (repo) =>
        repo.owner.id === installation.account.id && (installation.repositorySelection === 'all' || installation.repoIds.has(repo.id)),
    );
  }

  app(id: number): FakeApp {
    const app = this.apps.get(id);
    if (!app) throw new Error(`no app ${id}`);
    return app;
  }
}

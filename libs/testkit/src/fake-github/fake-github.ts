import { generateKeyPairSync } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeTempDir, removeTempDir } from '../temp-dir';
import { emitRunEvent, emitSuiteEvent, ensureSuite, rerequestSuite } from './check-actions';
import { FakeCi } from './controls/ci';
import * as installations from './controls/installations';
import * as pulls from './controls/pulls';
import * as repos from './controls/repos';
import { FakeCore, type Behaviour } from './core';
import { Faults } from './faults';
import { readCommit, readRef } from './git';
import type { CheckRun, CheckSuite, CollaboratorRole, ClassicProtection, FakeApp, FakePull, IssueComment, PermissionLevel } from './model';
import type { RepoScope } from './operations';
import { RequestLog } from './requests';
import { appHandlers } from './routes/app';
import { actionHandlers } from './routes/actions';
import { checkHandlers } from './routes/checks';
import { commentHandlers } from './routes/comments';
import { gitDataHandlers } from './routes/git-data';
import { mergeHandlers } from './routes/merges';
import { pullHandlers } from './routes/pulls';
import { repoHandlers } from './routes/repos';
import { schemaValidator } from './schema-validator';
import { createApp } from './server';
import { FakeState } from './state';
import { WebhookSender } from './webhook-sender';

export interface FakeGithubOptions {
  /** Where the bare repositories live; a temporary directory, removed by stop(), when absent. */
  root?: string;
  app?: { id?: number; slug?: string; name?: string; events?: string[]; permissions?: Partial<Record<RepoScope, PermissionLevel>> };
  webhookSecret?: string;
  /** Where webhooks go; can be set later with setWebhookUrl. */
  webhookUrl?: string;
  /** Check every response and webhook against GitHub's schemas (default true; off for benchmarks). */
  validate?: boolean;
  now?: () => Date;
  behaviour?: Partial<Behaviour>;
}

const DEFAULT_EVENTS = ['pull_request', 'issue_comment', 'check_run', 'check_suite', 'status', 'push'];

/** A GitHub for tests: see docs/github.md, "Testing without GitHub". */
export class FakeGithub {
  /** The App's private key (PEM), to configure the client under test with. */
  readonly appPrivateKey: string;
  readonly webhookSecret: string;
  readonly faults: Faults;
  readonly requests = new RequestLog();
  readonly ci: FakeCi;
  private readonly core: FakeCore;
  private server: Server | null = null;
  private baseUrl = '';

  private constructor(
    root: string,
    private readonly ownsRoot: boolean,
    options: FakeGithubOptions,
  ) {
    const state = new FakeState(options.now ?? (() => new Date()));
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.appPrivateKey = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    this.webhookSecret = options.webhookSecret ?? 'fake-github-webhook-secret';
    const app = this.makeApp(state, {
      id: options.app?.id ?? 424242,
      slug: options.app?.slug ?? 'railyard',
      name: options.app?.name ?? 'Railyard',
      events: options.app?.events ?? DEFAULT_EVENTS,
      permissions: options.app?.permissions ?? installations.DEFAULT_PERMISSIONS,
    });
    app.publicKey = publicKey;
    const ciApp = this.makeApp(state, {
      id: 15368,
      slug: 'fake-ci',
      name: 'Fake CI',
      events: [],
      permissions: { checks: 'write', statuses: 'write' },
    });
    const validator = options.validate === false ? null : schemaValidator();
    const core = new FakeCore(
      root,
      state,
      { api: '', html: '' },
      app,
      ciApp,
      new WebhookSender({
        secret: this.webhookSecret,
        url: options.webhookUrl,
        appId: app.id,
        validator,
        onViolation: (where, errors) => core.recordViolation(where, errors),
      }),
      validator,
      { mergedFlagDelayMs: 50, pendingMergeState: 'dirty', mergeabilityDelayMs: 0, latencyMs: 0, ...options.behaviour },
    );
    this.core = core;
    this.faults = new Faults(() => Math.floor(state.now().getTime() / 1000));
    this.ci = new FakeCi(core);
    core.branchListeners.push((repo, _branch, sha) => this.requestSuite(repo.id, sha));
  }

  static async start(options: FakeGithubOptions = {}): Promise<FakeGithub> {
    const root = options.root ?? (await makeTempDir('fake-github-'));
    const fake = new FakeGithub(root, options.root === undefined, options);
    await fake.listen();
    return fake;
  }

  private makeApp(state: FakeState, spec: Omit<FakeApp, 'owner' | 'bot' | 'createdAt'>): FakeApp {
    const app: FakeApp = {
      ...spec,
      owner: state.user(`${spec.slug}-owner`),
      bot: state.user(`${spec.slug}[bot]`, 'Bot'),
      createdAt: state.iso(),
    };
    state.apps.set(app.id, app);
    return app;
  }

  private async listen(): Promise<void> {
    const app = createApp({
      core: this.core,
      faults: this.faults,
      requests: this.requests,
      handlers: {
        ...appHandlers,
        ...repoHandlers,
        ...pullHandlers,
        ...gitDataHandlers,
        ...mergeHandlers,
        ...checkHandlers,
        ...actionHandlers,
        ...commentHandlers,
      },
      baseUrl: () => this.baseUrl,
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    Object.assign(this.core.view.urls, { api: this.baseUrl, html: `${this.baseUrl}/_web` });
  }

  /** The API's base URL, for RAILYARD_GITHUB_API_URL. */
  get url(): string {
    return this.baseUrl;
  }

  get appId(): number {
    return this.core.app.id;
  }

  get appSlug(): string {
    return this.core.app.slug;
  }

  get ciAppId(): number {
    return this.core.ciApp.id;
  }

  get root(): string {
    return this.core.root;
  }

  /** Responses and webhooks that did not match GitHub's schemas, and errors inside the fake: each one is a bug in the fake. */
  get violations(): readonly string[] {
    return this.core.violations;
  }

  get webhooks() {
    return this.core.webhooks;
  }

  get behaviour(): Behaviour {
    return this.core.behaviour;
  }

  async stop(): Promise<void> {
    await this.core.stop();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections();
    if (this.ownsRoot) await removeTempDir(this.core.root);
  }

  // --- accounts, repositories, branches
  setWebhookUrl(url: string | undefined): void {
    this.core.webhooks.setUrl(url);
  }

  createRepo(input: Parameters<typeof repos.createRepo>[1]) {
    return repos.createRepo(this.core, input);
  }

  forkRepo(source: string, owner: string) {
    return repos.forkRepo(this.core, source, owner);
  }

  /** Commits files on a branch and pushes it (creating the branch from `from` or the default branch). */
  commit(input: repos.CommitInput): Promise<string> {
    return repos.commitFiles(this.core, input);
  }

  setBranch(repo: string, branch: string, sha: string, user?: string): Promise<void> {
    return repos.setBranch(this.core, repo, branch, sha, user);
  }

  deleteBranch(repo: string, branch: string, user?: string): Promise<void> {
    return repos.deleteBranch(this.core, repo, branch, user);
  }

  /** After a `git push` straight into a bare repository: reacts to whatever moved. */
  refsChanged(repo: string, user?: string): Promise<void> {
    return repos.refsChanged(this.core, repo, user);
  }

  async branchSha(repo: string, branch: string): Promise<string | null> {
    return readRef(repos.repoNamed(this.core, repo).gitDir, `refs/heads/${branch}`);
  }

  async treeOf(repo: string, sha: string): Promise<string> {
    const commit = await readCommit(this.gitDir(repo), sha);
    if (commit === null) throw new Error(`no commit ${sha} in ${repo}`);
    return commit.tree;
  }

  gitDir(repo: string): string {
    return repos.repoNamed(this.core, repo).gitDir;
  }

  setCollaborator(repo: string, login: string, role: CollaboratorRole | null): void {
    repos.setCollaborator(this.core, repo, login, role);
  }

  protectBranch(repo: string, branch: string, protection: ClassicProtection | null): void {
    repos.protectBranch(this.core, repo, branch, protection);
  }

  addRuleset(repo: string, ruleset: Parameters<typeof repos.addRuleset>[2]): number {
    return repos.addRuleset(this.core, repo, ruleset);
  }

  allowBypass(repo: string, allowed = true): void {
    repos.allowBypass(this.core, repo, this.core.app.id, allowed);
  }

  // --- the App's installations
  install(input: Parameters<typeof installations.install>[1]) {
    return installations.install(this.core, input);
  }

  uninstall(installationId: number): void {
    installations.uninstall(this.core, installationId);
  }

  suspend(installationId: number, suspended = true): void {
    installations.suspend(this.core, installationId, suspended);
  }

  addReposToInstallation(installationId: number, repoNames: string[]): void {
    installations.changeRepos(this.core, installationId, 'added', repoNames);
  }

  removeReposFromInstallation(installationId: number, repoNames: string[]): void {
    installations.changeRepos(this.core, installationId, 'removed', repoNames);
  }

  // --- pull requests and their conversation
  openPullRequest(input: pulls.OpenPullInput): Promise<FakePull> {
    return pulls.openPull(this.core, input);
  }

  pullRequest(repo: string, number: number): FakePull {
    return pulls.pullNamed(this.core, repo, number);
  }

  closePullRequest(repo: string, number: number, user?: string): Promise<void> {
    return pulls.closePull(this.core, repo, number, user);
  }

  reopenPullRequest(repo: string, number: number, user?: string): Promise<void> {
    return pulls.reopenPull(this.core, repo, number, user);
  }

  editPullRequest(repo: string, number: number, changes: Parameters<typeof pulls.editPull>[3], user?: string): Promise<void> {
    return pulls.editPull(this.core, repo, number, changes, user);
  }

  setDraft(repo: string, number: number, draft: boolean, user?: string): Promise<void> {
    return pulls.setDraft(this.core, repo, number, draft, user);
  }

  label(repo: string, number: number, name: string, present = true, user?: string): Promise<void> {
    return pulls.setLabel(this.core, repo, number, name, present, user);
  }

  /** Flags a merge-pending PR merged now instead of after behaviour.mergedFlagDelayMs. */
  flagMergedNow(repo: string, number: number): Promise<void> {
    return pulls.flagMergedNow(this.core, repo, number);
  }

  comment(repo: string, number: number, user: string, body: string): IssueComment {
    return pulls.comment(this.core, repo, number, user, body);
  }

  editComment(id: number, body: string, user?: string): IssueComment {
    return pulls.changeComment(this.core, id, body, user);
  }

  deleteComment(id: number, user?: string): void {
    pulls.removeComment(this.core, id, user);
  }

  comments(repo: string, number: number): IssueComment[] {
    const repoId = repos.repoNamed(this.core, repo).id;
    return [...this.core.state.comments.values()].filter((c) => c.repoId === repoId && c.issueNumber === number);
  }

  checkRuns(repo: string, sha: string): CheckRun[] {
    const repoId = repos.repoNamed(this.core, repo).id;
    return [...this.core.state.checkRuns.values()].filter((r) => r.repoId === repoId && r.headSha === sha);
  }

  /** A person pressing "Re-run" on a check run of the App (check_run.rerequested to its owner). */
  async rerequestCheckRun(id: number, user: string): Promise<void> {
    const run = this.core.state.checkRuns.get(id);
    if (!run) throw new Error(`no check run ${id}`);
    if (run.appId === this.core.app.id) await emitRunEvent(this.core, run, 'rerequested', this.core.state.user(user));
  }

  /** A person pressing one of the buttons a check run offers (check_run.requested_action). */
  async requestCheckRunAction(id: number, identifier: string, user: string): Promise<void> {
    const run = this.core.state.checkRuns.get(id);
    if (!run) throw new Error(`no check run ${id}`);
    if (run.appId === this.core.app.id) await emitRunEvent(this.core, run, 'requested_action', this.core.state.user(user), identifier);
  }

  /** A person asking to re-run all checks of the App's suite (check_suite.rerequested to its owner). */
  async rerequestCheckSuite(id: number, user: string): Promise<void> {
    const suite = this.core.state.checkSuites.get(id);
    if (!suite) throw new Error(`no check suite ${id}`);
    await rerequestSuite(this.core, this.core.state.repo(suite.repoId), suite, this.core.state.user(user));
  }

  checkSuites(repo: string, sha: string): CheckSuite[] {
    const repoId = repos.repoNamed(this.core, repo).id;
    return [...this.core.state.checkSuites.values()].filter((s) => s.repoId === repoId && s.headSha === sha);
  }

  /** GitHub opens a check suite for the App on every pushed commit and asks it to run (check_suite.requested). */
  private requestSuite(repoId: number, sha: string): void {
    const repo = this.core.state.repo(repoId);
    if (!this.core.listeningInstallation(repo) || this.core.app.permissions.checks !== 'write') return;
    const { suite, created } = ensureSuite(this.core, repo, this.core.app.id, sha);
    if (created) this.core.later(0, () => emitSuiteEvent(this.core, suite, 'requested', this.core.app.bot));
  }
}

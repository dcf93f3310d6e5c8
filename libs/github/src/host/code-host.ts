import { randomUUID } from 'node:crypto';
import {
  formatRepo,
  hostMergeability,
  type MergeMethod,
  type Mergeability,
  type PullRequestSnapshot,
  type RepoRef,
  type ReportedStatus,
} from '@railyard/domain';
import { RAILYARD_CONFIG_FILE, TRUNK_CONFIG_FILE } from '@railyard/ci';
import { GitHostError } from '@railyard/githost';
import type { GithubApp } from '../github-app';
import { hostEventsOf, type GithubHostEvent } from './host-events';
import { HostMemory, type CheckRunView, type StatusView } from './memory';
import { checkBranch, checkSha, RepoApi, type PullView } from './repo-api';
import { messageOf, RepoClients, statusOf } from './repo-client';
import { mergeReports } from './statuses';
import { buildTestBranch, CARRY_BRANCH_PREFIX, TEST_BRANCH_PREFIX, type Built, type ChangedPaths, type StackedPull } from './test-branch';

export interface GithubCodeHostOptions {
  app: GithubApp;
  /** The App's id: its own comments are told apart by it. */
  appId: number;
  /** The host name repositories of this GitHub carry (`github.com`, a GHES host name). */
  host: string;
  /** Waits between re-reads of a PR whose mergeability GitHub is still working out. */
  mergeabilityPollMs?: readonly number[];
}

/** Marks the comment Railyard leaves on a PR it closed after landing its change; read back by pullRequest. */
export const LANDED_MARKER = '<!-- railyard:landed -->';

const DEFAULT_POLL_MS = [500, 1000, 2000, 4000, 8000, 15000, 30000];

/**
 * The merge engine's code-host port (libs/queue-driver/src/host/port.ts) on GitHub, as a GitHub App
 * (docs/github.md, "The code-host adapter"). Test branches are built with the git data and merges
 * APIs, a landing is a fast-forward-only `PATCH git/refs`, reports are commit statuses and check runs,
 * and events are the webhooks the API hands to `receive`. Nothing here retries a write: the client
 * retries reads only, and after a failed landing the adapter re-reads the branch and answers from it.
 */
export class GithubCodeHost {
  readonly host: string;
  private readonly clients: RepoClients;
  private readonly appId: number;
  private readonly listeners = new Map<(event: GithubHostEvent) => void, number>();
  private readonly polling = new Set<string>();
  private readonly pollMs: readonly number[];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly memory = new HostMemory(30_000, 5_000, 10_000);
  private closed = false;

  constructor(opts: GithubCodeHostOptions) {
    this.clients = new RepoClients(opts.app);
    this.appId = opts.appId;
    this.host = opts.host;
    this.pollMs = opts.mergeabilityPollMs ?? DEFAULT_POLL_MS;
  }

  private async api(repo: RepoRef): Promise<RepoApi> {
    return new RepoApi(await this.clients.of(repo), repo);
  }

  /** Reads the PR and remembers it for a moment (markMerged right after the pre-landing read, a squash's author). */
  private async readPull(api: RepoApi, number: number): Promise<PullView | null> {
    const pr = await api.pull(number);
    if (pr !== null) this.memory.pullRead(api.repo, pr, { login: pr.author, id: pr.authorId });
    return pr;
  }

  /** The REST calls of one repository, for GithubCi (the same installation client). */
  repoApi(repo: RepoRef): Promise<RepoApi> {
    return this.api(repo);
  }

  /** The PR now; drafts read as they are (their mergeability says they are not ready). */
  async pullRequest(repo: RepoRef, number: number): Promise<Omit<PullRequestSnapshot, 'mergeability'> | null> {
    const api = await this.api(repo);
    const pr = await this.readPull(api, number);
    if (pr === null) return null;
    let state = pr.state;
    // A PR whose change Railyard landed as new commits (squash, rebase) is closed by Railyard with a
    // marked comment: it reads merged, as it does on the local host.
    if (state === 'closed' && this.memory.wasClosedAfterLanding(repo, number)) state = 'merged';
    else if (state === 'closed' && (await api.appComments(number, this.appId)).some((body) => body.includes(LANDED_MARKER)))
      state = 'merged';
    return { number: pr.number, title: pr.title, author: pr.author, headSha: pr.headSha, baseBranch: pr.baseBranch, state };
  }

  /**
   * The PR with what GitHub knows of its mergeability, from one read: the API's submissions (the
   * GitHost read side) never wait for GitHub to work it out.
   */
  async snapshot(repo: RepoRef, number: number): Promise<PullRequestSnapshot | null> {
    const pr = await this.readPull(await this.api(repo), number);
    if (pr === null) return null;
    const mergeability = hostMergeability({ open: pr.state === 'open', draft: pr.draft, mergeable: pr.mergeable });
    return {
      number: pr.number,
      title: pr.title,
      author: pr.author,
      headSha: pr.headSha,
      headBranch: pr.headBranch,
      baseBranch: pr.baseBranch,
      state: pr.state,
      mergeability,
    };
  }

  /**
   * GitHub's `mergeable` for the PR at `headSha`. While GitHub works it out (`null`) the answer is
   * `in_progress` and the PR is re-read in the background until it is known, then announced. A draft
   * is `unspecified`: not ready, and nothing to wait for until it is marked ready (a `pull` event).
   */
  async mergeability(repo: RepoRef, number: number, headSha: string): Promise<Mergeability> {
    const api = await this.api(repo);
    // The engine asks right after reading the PR (pullRequest): that read, at this head, answers.
    const recent = this.memory.recentPull(repo, number);
    const pr = recent?.headSha === headSha ? recent : await this.readPull(api, number);
    if (pr === null) return 'not_mergeable';
    if (pr.state === 'open' && pr.headSha !== headSha) return 'unspecified';
    const known = hostMergeability({ open: pr.state === 'open', draft: pr.draft, mergeable: pr.mergeable });
    // Only GitHub still working it out is worth waiting for; a draft waits for its ready_for_review event.
    if (known !== 'unspecified' || pr.draft) return known;
    this.pollMergeability(api, number, headSha);
    return 'in_progress';
  }

  private pollMergeability(api: RepoApi, number: number, headSha: string): void {
    const key = `${formatRepo(api.repo)}\0${number}\0${headSha}`;
    if (this.polling.has(key)) return;
    this.polling.add(key);
    const attempt = (i: number): void => {
      const delay = this.pollMs[Math.min(i, this.pollMs.length - 1)] ?? 1000;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (this.closed) return;
        void api.pull(number).then(
          (pr) => {
            if (pr === null || pr.state !== 'open' || pr.headSha !== headSha) return this.polling.delete(key);
            if (pr.mergeable === null) return i + 1 < this.pollMs.length * 2 ? attempt(i + 1) : this.polling.delete(key);
            this.polling.delete(key);
            this.emit({
              kind: 'mergeability',
              repo: api.repo,
              number,
              headSha,
              mergeability: pr.mergeable ? 'mergeable' : 'not_mergeable',
            });
          },
          () => {
            this.polling.delete(key);
            this.emit({ kind: 'resync', repo: api.repo });
          },
        );
      }, delay);
      timer.unref();
      this.timers.add(timer);
    };
    attempt(0);
  }

  async branchHead(repo: RepoRef, branch: string): Promise<{ sha: string; tree: string } | null> {
    const api = await this.api(repo);
    // Right after a landing the base is where it was landed until a push is announced (or 10 s pass):
    // a stale answer could only cost a refused landing, never land something untested.
    const sha = this.memory.knownHead(repo, branch) ?? (await api.branchSha(branch));
    return sha === null ? null : { sha, tree: (await api.commit(sha)).tree };
  }

  async treeOf(repo: RepoRef, sha: string): Promise<string> {
    return (await (await this.api(repo)).commit(sha)).tree;
  }

  async isAncestor(repo: RepoRef, ancestor: string, descendant: string): Promise<boolean> {
    if (ancestor === descendant) return true;
    const { status } = await (await this.api(repo)).compare(checkSha(descendant, 'descendant'), checkSha(ancestor, 'ancestor'));
    // base...head with the descendant as base: the ancestor is "behind" it (or the same commit).
    return status === 'behind' || status === 'identical';
  }

  /** The reports on `sha`; each kind is listed again only once a webhook named it on the commit (or it aged out). */
  async statuses(repo: RepoRef, sha: string): Promise<ReportedStatus[]> {
    const [statuses, checkRuns] = await Promise.all([this.commitStatuses(repo, sha), this.checkRuns(repo, sha)]);
    return mergeReports(statuses, checkRuns);
  }

  private async commitStatuses(repo: RepoRef, sha: string): Promise<readonly StatusView[]> {
    const known = this.memory.statusesOf(repo, sha);
    if (known) return known;
    const listed = await (await this.api(repo)).commitStatuses(sha);
    this.memory.listedStatuses(repo, sha, listed);
    return listed;
  }

  /** The latest check run of each name on `sha` (GithubCi re-runs failed ones from this list). */
  async checkRuns(repo: RepoRef, sha: string): Promise<readonly CheckRunView[]> {
    const known = this.memory.checkRunsOf(repo, sha);
    if (known) return known;
    const listed = await (await this.api(repo)).checkRuns(sha);
    this.memory.listedCheckRuns(repo, sha, listed);
    return listed;
  }

  /** Check runs GitHub was asked to run again: what is remembered of them is stale until they report. */
  forgetCheckRuns(repo: RepoRef, sha: string): void {
    this.memory.forget({ kind: 'status', repo, sha, report: 'check' });
  }

  async buildTestBranch(
    repo: RepoRef,
    request: { baseSha: string; stack: readonly StackedPull[]; method: MergeMethod; testRunId: string; prNumber: number },
  ): Promise<Built> {
    const changed: ChangedPaths = { paths: new Set() };
    const built = await buildTestBranch(
      await this.api(repo),
      request,
      (headSha) => {
        const author = this.memory.authorOf(repo, headSha);
        // As GitHub authors a squash: the PR's author, with their no-reply address.
        return (
          author && { name: author.login, email: `${author.id}+${author.login}@users.noreply.github.com`, date: new Date().toISOString() }
        );
      },
      changed,
    );
    if (built.ok) {
      // The tested commit reads the queue's configuration files from its base when no merge touched them.
      if (changed.paths !== null && ![...changed.paths].some(isConfigPath)) this.memory.configSameAs(repo, built.sha, request.baseSha);
      this.memory.built(
        repo,
        request.stack.map((p) => p.number),
        request.method,
      );
      this.memory.testBranchMoved(repo, built.branch, built.sha);
      this.memory.wroteCommit(repo, built.sha);
    }
    return built;
  }

  /** A commit with the same `.railyard.yml` and `.trunk/trunk.yaml` as `sha` whose files may be known already (GithubCi). */
  configCommitOf(repo: RepoRef, sha: string): string {
    return this.memory.configCommitOf(repo, sha);
  }

  async listTestBranches(repo: RepoRef): Promise<{ branch: string; testRunId: string }[]> {
    let branches = this.memory.branchesOf(repo);
    if (!branches) {
      // Listed from GitHub at most every 30 s (the engine's verification); between listings this
      // adapter's own creations and deletions keep the list, and orphans wait for the next listing.
      branches = new Map((await (await this.api(repo)).branchesUnder(TEST_BRANCH_PREFIX)).map((b) => [b.branch, b.sha]));
      this.memory.listedBranches(repo, branches);
    }
    return [...branches.keys()].map((branch) => ({ branch, testRunId: branch.split('/').pop() ?? '' }));
  }

  /**
   * GitHub deletes a ref without a compare-and-swap, so `expectedSha` is checked by a read first; a
   * push in the instant between is the only way to lose, and only a Railyard branch can be named here.
   */
  async deleteBranch(repo: RepoRef, branch: string, expectedSha?: string): Promise<void> {
    const api = await this.api(repo);
    checkBranch(branch);
    if (expectedSha !== undefined && this.memory.testBranchSha(repo, branch) !== expectedSha) {
      const sha = await api.branchSha(branch);
      if (sha === null || sha !== expectedSha) return;
    }
    await api.deleteBranch(branch);
    this.memory.testBranchMoved(repo, branch, null);
  }

  async carryOnto(
    repo: RepoRef,
    request: { mode: 'copy' | 'replay'; from: string; to: string; onto: string },
  ): Promise<{ ok: true; sha: string } | { ok: false; paths: string[] }> {
    const api = await this.api(repo);
    for (const sha of [request.from, request.to, request.onto]) checkSha(sha, 'carryOnto');
    const chain = await firstParentChain(api, request.from, request.to);
    if (request.mode === 'copy') {
      let tip = request.onto;
      for (const c of chain)
        tip = (await api.createCommit({ tree: c.tree, parents: [tip, ...c.parents.slice(1)], message: c.message, author: c.author })).sha;
      return { ok: true, sha: tip };
    }
    const scratch = `${CARRY_BRANCH_PREFIX}${randomUUID()}`;
    const onto = await api.commit(request.onto);
    await api.createBranch(scratch, onto.sha);
    try {
      let tip = { sha: onto.sha, tree: onto.tree };
      // Each commit is merged into the scratch branch, whose history then holds it: the next commit's
      // three-way merge is against its own parent, a cherry-pick; the copy keeps its other parents.
      for (const c of chain) {
        const merged = await api.merge(scratch, c.sha, `railyard: pick ${c.sha}`);
        if (merged.kind === 'conflict') return { ok: false, paths: [] };
        if (merged.kind === 'nothing' || merged.tree === tip.tree) continue;
        const picked = await api.createCommit({
          tree: merged.tree,
          parents: [tip.sha, ...c.parents.slice(1)],
          message: c.message,
          author: c.author,
        });
        tip = { sha: picked.sha, tree: picked.tree };
      }
      return { ok: true, sha: tip.sha };
    } finally {
      await api.deleteBranch(scratch).catch(() => undefined);
    }
  }

  /** The PR's head on `baseSha` as one commit: squash or merge commit of the head's tree; a rebase of an up-to-date head is the head. */
  async directMergeCommit(
    repo: RepoRef,
    request: { baseSha: string; headSha: string; prNumber: number; title: string; method: MergeMethod },
  ): Promise<string> {
    const api = await this.api(repo);
    checkSha(request.baseSha, 'baseSha');
    const head = await api.commit(request.headSha);
    const title = request.title || (head.message.split('\n', 1)[0] ?? '');
    if (request.method === 'rebase' && head.parents[0] === request.baseSha) return head.sha;
    if (request.method === 'merge_commit') {
      const merge = await api.createCommit({
        tree: head.tree,
        parents: [request.baseSha, head.sha],
        message: `Merge pull request #${request.prNumber}\n\n${title}\n`,
      });
      return merge.sha;
    }
    const squash = await api.createCommit({
      tree: head.tree,
      parents: [request.baseSha],
      message: `${title} (#${request.prNumber})\n`,
      author: head.author,
    });
    return squash.sha;
  }

  /**
   * `PATCH git/refs/heads/<branch>` without force: GitHub moves the branch only as a fast-forward, so
   * what lands is exactly the tested commit. Whatever goes wrong (422 not a fast forward, a 5xx, a
   * lost connection after GitHub applied it), the branch is read again and the answer is what it
   * holds: at `sha` is landed; elsewhere is moved. The same PATCH is never sent twice here.
   */
  async land(
    repo: RepoRef,
    request: { branch: string; sha: string; expected: string },
  ): Promise<{ landed: true } | { landed: false; actual: string | null }> {
    const api = await this.api(repo);
    checkSha(request.expected, 'expected');
    try {
      await api.updateBranch(request.branch, request.sha, false);
      this.memory.landedOn(repo, request.branch, request.sha);
      return { landed: true };
    } catch (err) {
      this.memory.forget({ kind: 'branch', repo, branch: request.branch });
      const actual = await api.branchSha(request.branch);
      if (actual === request.sha) {
        this.memory.landedOn(repo, request.branch, request.sha);
        return { landed: true };
      }
      if (actual !== request.expected) return { landed: false, actual };
      // Still where the engine saw it: GitHub refused this move itself (not a descendant, or a branch
      // rule the App may not bypass), or the request failed on the way. Either way nothing landed.
      if (statusOf(err) !== 422) throw err;
      // "not a fast forward" with the branch back where it was: it moved and returned, or GitHub's
      // replicas disagree for a moment; the engine backs off and plans again from a fresh read.
      if (/fast.forward/i.test(messageOf(err)))
        throw new GitHostError('REF_MOVED', `GitHub refused to fast-forward ${request.branch} to ${request.sha}: ${messageOf(err)}`);
      // A branch rule the App may not bypass: the queue shows it (docs/github.md, the App's bypass).
      throw new GitHostError('INVALID_INPUT', `GitHub refused to move ${request.branch} to ${request.sha}: ${messageOf(err)}`);
    }
  }

  /**
   * GitHub flags a PR merged by itself once its head is in the base's history (a merge commit, a
   * fast-forward), a moment after the push. Otherwise (squash, rebase) the PR is closed, then a marked
   * comment links the landed commit. Already merged or closed: nothing.
   */
  async markMerged(repo: RepoRef, number: number): Promise<void> {
    const api = await this.api(repo);
    // The engine read the PR just before landing; that read is good enough to know it was open.
    const pr = this.memory.recentPull(repo, number) ?? (await this.readPull(api, number));
    if (pr === null || pr.state !== 'open') return;
    const method = this.memory.methodOf(repo, number);
    const landedSha = this.memory.lastLanding(repo, pr.baseBranch);
    let link: string;
    if ((method === 'squash' || method === 'rebase') && landedSha !== undefined) {
      // This adapter wrote new commits for it: GitHub will not flag it merged, nothing to ask.
      link = `${pr.repoUrl}/commit/${landedSha}`;
    } else if (method === 'merge_commit' && landedSha !== undefined) {
      // Its test branch merged the PR's head itself, and that commit landed: GitHub flags it merged.
      return;
    } else {
      const cmp = await api.compare(pr.baseBranch, pr.headSha);
      if (cmp.status === 'behind' || cmp.status === 'identical') return;
      link = cmp.baseUrl;
    }
    await api.closePull(number);
    this.memory.closedAfterLanding(repo, number);
    await api.comment(
      number,
      `${LANDED_MARKER}\nMerged by Railyard as ${link} (the tested commit; GitHub does not mark squashed or rebased changes merged).`,
    );
  }

  /** Feeds a verified webhook delivery (the API's POST /github/webhooks) to the watchers. */
  receive(event: string, payload: unknown): void {
    this.announce(hostEventsOf(this.host, event, payload));
  }

  /** Hands host events worked out elsewhere (an API process's webhooks, over Redis: hints.ts) to the watchers. */
  announce(events: readonly GithubHostEvent[]): void {
    for (const e of events) {
      // The close this adapter made after landing the PR's change: nothing new to read.
      if (e.kind === 'pull' && e.closed && this.memory.wasClosedAfterLanding(e.repo, e.number)) continue;
      // The App gained or lost the repository: its installation may have changed.
      if (e.kind === 'resync') this.clients.forget(e.repo);
      this.memory.forget(e);
      this.emit(e);
    }
  }

  watch(_repo: RepoRef, _branches: readonly string[], listener: (event: GithubHostEvent) => void): () => void {
    this.listeners.set(listener, (this.listeners.get(listener) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const holds = (this.listeners.get(listener) ?? 1) - 1;
      if (holds > 0) this.listeners.set(listener, holds);
      else this.listeners.delete(listener);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.listeners.clear();
  }

  private emit(event: GithubHostEvent): void {
    for (const listener of [...this.listeners.keys()]) {
      try {
        listener(event);
      } catch {
        // One failing listener must not keep the others from hearing.
      }
    }
  }
}

/** Whether a changed path can change what the configuration files say (one of them, or a directory on their way). */
const isConfigPath = (path: string): boolean =>
  [RAILYARD_CONFIG_FILE, TRUNK_CONFIG_FILE].some((file) => path === file || file.startsWith(`${path}/`) || path.startsWith(`${file}/`));

/** The first-parent commits of `from..to`, oldest first, read commit by commit (cached: the engine wrote most of them). */
const firstParentChain = async (api: RepoApi, from: string, to: string) => {
  const chain = [];
  let sha = to;
  while (sha !== from) {
    const c = await api.commit(sha);
    chain.push(c);
    if (chain.length > 1000 || c.parents[0] === undefined)
      throw new GitHostError('INVALID_INPUT', `${from} is not a first-parent ancestor of ${to}`);
    sha = c.parents[0];
  }
  return chain.reverse();
};

import {
  formatRepo,
  type MergeMethod,
  type Mergeability,
  type PullRequestSnapshot,
  type RepoRef,
  type ReportedStatus,
} from '@railyard/domain';
import { LRUCache } from 'lru-cache';
import { GitHostError, isGitHostError } from '../errors';
import { LocalGitAdmin } from './admin';
import { deleteBranch, moveBranch } from './branches';
import { treeOfCommit, type Identity } from './commits';
import { copyCommitsOnto, directMergeCommit, isAncestor, replayCommitsOnto } from './landing';
import { LocalGitHost } from './local-git-host';
import { DEFAULT_COMMITTER } from './local-git-writer';
import { isObjectId } from './names';
import { RefReader } from './refs';
import { existingRepoDir } from './repos';
import type { CommitStatusStore } from '../statuses/port';
import { buildTestBranch, type BuildTestBranchResult, type StackedPullRequest } from './test-branch';
import { StackPrefixes } from './stack-prefixes';
import { RepoWatcher } from './watch';

const TEST_BRANCH_PREFIX = 'refs/heads/railyard-merge/';

/** The events LocalCodeHost announces; the same shape as the engine's HostEvent (libs/queue-driver/src/host/port.ts). */
export type LocalHostEvent =
  | { kind: 'pull'; repo: RepoRef; number: number }
  | { kind: 'branch'; repo: RepoRef; branch: string }
  | { kind: 'status'; repo: RepoRef; sha: string }
  | { kind: 'mergeability'; repo: RepoRef; number: number; headSha: string; mergeability: Mergeability }
  | { kind: 'resync'; repo: RepoRef };

export interface LocalCodeHostOptions {
  /** Directory holding `<host>/<owner>/<name>.git`. */
  root: string;
  /** Commit statuses; libs/ci's store in a composition with the local CI, so both read one store. The caller closes it. */
  statuses: CommitStatusStore;
  committer?: Identity;
  now?: () => Date;
  /** git processes that work out mergeability at once. */
  maxConcurrentGit?: number;
}

interface Watched {
  watcher: RepoWatcher | null;
  users: number;
}

/** git's internal date format in UTC, which commit-tree takes through GIT_*_DATE. */
const gitDate = (d: Date): string => `${Math.floor(d.getTime() / 1000)} +0000`;

/**
 * The merge engine's code-host port (libs/queue-driver/src/host/port.ts) on the local git host: bare
 * repositories and the git CLI. Reads go to the files (refs, PR files, statuses) without a git process;
 * git runs to build, carry and land commits, and to work out mergeability, which is done in the
 * background and announced as an event, as a forge does. Events come from file notifications (PR
 * files, the watched branches' refs, packed-refs) and from the status store.
 */
export class LocalCodeHost {
  readonly root: string;
  private readonly git: LocalGitHost;
  private readonly admin: LocalGitAdmin;
  private readonly refs = new RefReader(256);
  private readonly trees = new LRUCache<string, string>({ max: 20_000 });
  /** The run behind reuses the commits of the stack the run ahead built (stack-prefixes.ts). */
  private readonly prefixes = new StackPrefixes();
  private readonly statusStore: CommitStatusStore;
  private readonly committer: Identity;
  private readonly now: () => Date;
  /** Each listener with how many watches it holds: one function may watch several queues' branches. */
  private readonly listeners = new Map<(event: LocalHostEvent) => void, number>();
  private readonly watched = new Map<string, Watched>();
  private offStatuses: (() => void) | null = null;
  private readonly working = new Set<string>();

  constructor(opts: LocalCodeHostOptions) {
    this.root = opts.root;
    this.now = opts.now ?? (() => new Date());
    // Mergeability is background work (nobody waits on it): niced, so API requests keep the CPU. Its git
    // runs from the process's git helper like all the host's git (docs/decisions.md D29, D268).
    this.git = new LocalGitHost({
      root: opts.root,
      maxConcurrentGit: opts.maxConcurrentGit ?? 2,
      niceness: 10,
    });
    this.admin = new LocalGitAdmin({ root: opts.root, now: this.now });
    this.statusStore = opts.statuses;
    this.committer = opts.committer ?? DEFAULT_COMMITTER;
  }

  async pullRequest(repo: RepoRef, number: number): Promise<Omit<PullRequestSnapshot, 'mergeability'> | null> {
    const pull = await this.git.readPull(repo, number);
    if (pull === null) return null;
    const { gitDir: _gitDir, file: _file, ...rest } = pull;
    return rest;
  }

  /**
   * The answer known now for (base head, `headSha`); when there is none, git works it out in the
   * background and a `mergeability` event announces it. Closed and merged PRs are not mergeable.
   */
  async mergeability(repo: RepoRef, number: number, headSha: string): Promise<Mergeability> {
    const pull = await this.git.readPull(repo, number);
    if (pull === null || pull.state !== 'open') return 'not_mergeable';
    const known = await this.git.knownMergeability(pull.gitDir, pull.baseBranch, headSha, pull.file);
    if (known === 'mergeable' || known === 'not_mergeable') return known;
    // One background merge and one announcement per PR head, however often it is asked meanwhile.
    const key = `${pull.gitDir}\0${number}\0${headSha}`;
    if (this.working.has(key)) return 'in_progress';
    this.working.add(key);
    void this.git
      .mergeabilityOf(pull.gitDir, pull.baseBranch, headSha)
      .then(
        (mergeability) => this.emit({ kind: 'mergeability', repo, number, headSha, mergeability }),
        () => this.emit({ kind: 'resync', repo }),
      )
      .finally(() => this.working.delete(key));
    return 'in_progress';
  }

  async branchHead(repo: RepoRef, branch: string): Promise<{ sha: string; tree: string } | null> {
    const gitDir = await existingRepoDir(this.root, repo);
    const sha = await this.refs.read(gitDir, `refs/heads/${branch}`);
    return sha === null ? null : { sha, tree: await this.treeIn(gitDir, sha) };
  }

  async treeOf(repo: RepoRef, sha: string): Promise<string> {
    return this.treeIn(await existingRepoDir(this.root, repo), sha);
  }

  async isAncestor(repo: RepoRef, ancestor: string, descendant: string): Promise<boolean> {
    if (!isObjectId(ancestor) || !isObjectId(descendant)) throw new GitHostError('INVALID_INPUT', 'isAncestor takes full commit ids');
    return isAncestor(await existingRepoDir(this.root, repo), ancestor, descendant);
  }

  async statuses(repo: RepoRef, sha: string): Promise<ReportedStatus[]> {
    // Every reporter's latest: the engine sorts out which count (the domain's gatingReports).
    return (await this.statusStore.reports(repo, sha)).map((s) => ({
      context: s.context,
      state: s.state,
      ...(s.targetUrl ? { url: s.targetUrl } : {}),
      ...(s.reporter ? { reporter: s.reporter } : {}),
    }));
  }

  async buildTestBranch(
    repo: RepoRef,
    request: { baseSha: string; stack: readonly StackedPullRequest[]; method: MergeMethod; testRunId: string; prNumber: number },
  ): Promise<BuildTestBranchResult> {
    const gitDir = await existingRepoDir(this.root, repo);
    return buildTestBranch({ gitDir, committer: this.committer, date: gitDate(this.now()), prefixes: this.prefixes }, request);
  }

  async listTestBranches(repo: RepoRef): Promise<{ branch: string; testRunId: string }[]> {
    const refs = await this.refs.list(await existingRepoDir(this.root, repo), TEST_BRANCH_PREFIX);
    return [...refs.keys()].map((ref) => {
      const branch = ref.slice('refs/heads/'.length);
      return { branch, testRunId: branch.split('/').pop() ?? '' };
    });
  }

  async deleteBranch(repo: RepoRef, branch: string, expectedSha?: string): Promise<void> {
    await deleteBranch(await existingRepoDir(this.root, repo), this.refs, branch, expectedSha).catch((err: unknown) => {
      // Elsewhere than expected: someone else's now, left alone.
      if (!isGitHostError(err, 'REF_MOVED')) throw err;
    });
  }

  async carryOnto(
    repo: RepoRef,
    request: { mode: 'copy' | 'replay'; from: string; to: string; onto: string },
  ): Promise<{ ok: true; sha: string } | { ok: false; paths: string[] }> {
    const gitDir = await existingRepoDir(this.root, repo);
    for (const sha of [request.from, request.to, request.onto])
      if (!isObjectId(sha)) throw new GitHostError('INVALID_INPUT', `carryOnto takes full commit ids, got ${JSON.stringify(sha)}`);
    if (request.mode === 'copy') return { ok: true, sha: await copyCommitsOnto(gitDir, request.from, request.to, request.onto) };
    return replayCommitsOnto(gitDir, request.from, request.to, request.onto);
  }

  async directMergeCommit(
    repo: RepoRef,
    request: { baseSha: string; headSha: string; prNumber: number; title: string; method: MergeMethod },
  ): Promise<string> {
    const gitDir = await existingRepoDir(this.root, repo);
    if (!isObjectId(request.baseSha) || !isObjectId(request.headSha))
      throw new GitHostError('INVALID_INPUT', 'directMergeCommit takes full commit ids');
    return directMergeCommit(gitDir, { ...request, committer: this.committer, date: gitDate(this.now()) });
  }

  /**
   * A fast-forward by compare-and-swap: refused (nothing moves) when `sha` does not descend from
   * `expected`, as GitHub refuses a non-fast-forward; `landed: false` with where the branch is when
   * it is no longer at `expected`.
   */
  async land(
    repo: RepoRef,
    request: { branch: string; sha: string; expected: string },
  ): Promise<{ landed: true } | { landed: false; actual: string | null }> {
    const gitDir = await existingRepoDir(this.root, repo);
    const ref = `refs/heads/${request.branch}`;
    if (!(await this.isAncestor(repo, request.expected, request.sha)))
      throw new GitHostError('INVALID_INPUT', `${request.sha} does not descend from ${request.expected}: not a fast-forward of ${ref}`);
    try {
      await moveBranch(gitDir, this.refs, request.branch, request.sha, request.expected);
      return { landed: true };
    } catch (err) {
      if (!isGitHostError(err, 'REF_MOVED') && !isGitHostError(err, 'LOCKED')) throw err;
      const actual = await this.refs.read(gitDir, ref);
      return actual === request.sha ? { landed: true } : { landed: false, actual };
    }
  }

  async markMerged(repo: RepoRef, number: number): Promise<void> {
    await this.admin.markPullRequestMerged({ repo, number }).catch((err: unknown) => {
      // Already merged (a crash after marking) or closed meanwhile: the target holds the change either way.
      if (!isGitHostError(err, 'PR_MERGED') && !isGitHostError(err, 'PR_CLOSED')) throw err;
    });
  }

  watch(repo: RepoRef, branches: readonly string[], listener: (event: LocalHostEvent) => void): () => void {
    this.listeners.set(listener, (this.listeners.get(listener) ?? 0) + 1);
    this.offStatuses ??= this.statusStore.onChange((r, sha) => this.emit({ kind: 'status', repo: r, sha }));
    const key = `${formatRepo(repo)}\0${[...branches].sort().join('\0')}`;
    let w = this.watched.get(key);
    if (!w) {
      const entry: Watched = { watcher: null, users: 0 };
      this.watched.set(key, entry);
      void existingRepoDir(this.root, repo).then(
        (gitDir) => {
          if (this.watched.get(key) === entry)
            entry.watcher = new RepoWatcher(gitDir, branches, (change) => this.emit({ ...change, repo }));
        },
        () => undefined,
      );
      w = entry;
    }
    w.users++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const holds = (this.listeners.get(listener) ?? 1) - 1;
      if (holds > 0) this.listeners.set(listener, holds);
      else this.listeners.delete(listener);
      const current = this.watched.get(key);
      if (current && --current.users === 0) {
        current.watcher?.close();
        this.watched.delete(key);
      }
    };
  }

  async close(): Promise<void> {
    for (const w of this.watched.values()) w.watcher?.close();
    this.watched.clear();
    this.listeners.clear();
    this.offStatuses?.();
    this.offStatuses = null;
    await this.git.close();
  }

  private async treeIn(gitDir: string, sha: string): Promise<string> {
    if (!isObjectId(sha)) throw new GitHostError('INVALID_INPUT', `not a full commit id: ${JSON.stringify(sha)}`);
    const key = `${gitDir}\0${sha}`;
    let tree = this.trees.get(key);
    if (tree === undefined) {
      tree = await treeOfCommit(gitDir, sha);
      this.trees.set(key, tree);
    }
    return tree;
  }

  private emit(event: LocalHostEvent): void {
    for (const listener of [...this.listeners.keys()]) {
      try {
        listener(event);
      } catch {
        // One failing listener must not keep the others from hearing.
      }
    }
  }
}

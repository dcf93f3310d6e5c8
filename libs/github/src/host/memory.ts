import type { MergeMethod, RepoRef } from '@railyard/domain';
import { repoKey } from './repo-key';
import { LRUCache } from 'lru-cache';
import type { PullView } from './repo-api';

/** A commit status as the adapter lists it. */
export interface StatusView {
  context: string;
  state: string;
  url: string | null;
  /** The user or bot that posted it, as a reporter id (`github-user:<login>`); null when GitHub names none. */
  reporter?: string | null;
}

/** A check run as the adapter lists it. */
export interface CheckRunView {
  id: number;
  /** The check suite it belongs to: what a re-run re-requests. */
  suiteId: number | null;
  name: string;
  status: string;
  conclusion: string | null;
  url: string | null;
  /** The App that reports it, as a reporter id (`github-app:<slug>`); null when GitHub names none. */
  reporter?: string | null;
  startedAt: string | null;
  completedAt: string | null;
}

type ReportKind = 'status' | 'check';

/**
 * What the adapter remembers of its own doings to spare REST calls (docs/github.md, "Limits and REST
 * budget"). Nothing here can make a landing wrong: a landing is a fast-forward-only ref update whose
 * failure is decided from a fresh read, and a PR is read afresh before it lands. A remembered fact is
 * dropped when a webhook names it, when it ages out, or when a write finds it wrong.
 */
export class HostMemory {
  /** Test branches of each repository with their shas, listed from GitHub at most every `listTtlMs` and kept up to date by this adapter's own writes. */
  private readonly testBranches = new Map<string, { at: number; branches: Map<string, string> }>();
  /** PR views read in the last moments, for the reads right after (markMerged after the pre-landing read). */
  private readonly pulls: LRUCache<string, PullView>;
  /** The base's head after this adapter landed on it, until a push is announced or it ages out. */
  private readonly heads: LRUCache<string, string>;
  /** The merge method of the last test branch each PR was built into. */
  private readonly methods = new LRUCache<string, MergeMethod>({ max: 50_000 });
  /** PRs this adapter closed after landing their change (they read merged). */
  private readonly landedClosed = new LRUCache<string, true>({ max: 50_000 });
  /** The commit each base was last landed on, for the comment that links it. */
  private readonly landed = new LRUCache<string, string>({ max: 10_000 });
  /** PR authors by head sha (login and id), for squash commits authored as GitHub authors them. */
  private readonly authors = new LRUCache<string, { login: string; id: number }>({ max: 50_000 });
  /**
   * The commit statuses and the check runs of a commit, each kept until a webhook names that kind of
   * report on the commit (or the listing ages out, as the engine's verification does): a check run
   * completing does not make the commit's statuses worth a read.
   */
  private readonly reports: Record<ReportKind, LRUCache<string, readonly (StatusView | CheckRunView)[]>>;
  /** A test commit whose configuration files are those of another commit (its base): none of its merges changed them. */
  private readonly sameConfig = new LRUCache<string, string>({ max: 50_000 });
  /** Commits a kind of report was announced on: a commit this adapter just wrote starts with none of a kind only when none was heard of. */
  private readonly heard = new LRUCache<string, true>({ max: 50_000 });

  constructor(
    private readonly listTtlMs: number,
    pullTtlMs: number,
    headTtlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.pulls = new LRUCache({ max: 10_000, ttl: pullTtlMs });
    this.heads = new LRUCache({ max: 10_000, ttl: headTtlMs });
    this.reports = {
      status: new LRUCache({ max: 10_000, ttl: listTtlMs }),
      check: new LRUCache({ max: 10_000, ttl: listTtlMs }),
    };
  }

  statusesOf(repo: RepoRef, sha: string): readonly StatusView[] | undefined {
    return this.reports.status.get(`${repoKey(repo)}@${sha}`) as readonly StatusView[] | undefined;
  }

  checkRunsOf(repo: RepoRef, sha: string): readonly CheckRunView[] | undefined {
    return this.reports.check.get(`${repoKey(repo)}@${sha}`) as readonly CheckRunView[] | undefined;
  }

  listedStatuses(repo: RepoRef, sha: string, statuses: readonly StatusView[]): void {
    this.reports.status.set(`${repoKey(repo)}@${sha}`, statuses);
  }

  listedCheckRuns(repo: RepoRef, sha: string, runs: readonly CheckRunView[]): void {
    this.reports.check.set(`${repoKey(repo)}@${sha}`, runs);
  }

  /**
   * A commit this adapter has just written and pushed (a test branch's tip): nothing has reported on
   * it unless a webhook said so meanwhile, so both kinds start empty instead of being listed.
   */
  wroteCommit(repo: RepoRef, sha: string): void {
    const key = `${repoKey(repo)}@${sha}`;
    for (const kind of ['status', 'check'] as const)
      if (!this.heard.has(`${kind}:${key}`) && !this.reports[kind].has(key)) this.reports[kind].set(key, []);
  }

  configSameAs(repo: RepoRef, sha: string, base: string): void {
    if (sha !== base) this.sameConfig.set(`${repoKey(repo)}@${sha}`, base);
  }

  /** The oldest commit known to hold the same configuration files as `sha` (itself when none is known). */
  configCommitOf(repo: RepoRef, sha: string): string {
    let at = sha;
    // Bounded: each step is one landed test commit back.
    for (let i = 0; i < 1000; i++) {
      const base = this.sameConfig.get(`${repoKey(repo)}@${at}`);
      if (base === undefined) return at;
      at = base;
    }
    return at;
  }

  branchesOf(repo: RepoRef): Map<string, string> | undefined {
    const entry = this.testBranches.get(repoKey(repo));
    return entry && this.now() - entry.at < this.listTtlMs ? entry.branches : undefined;
  }

  listedBranches(repo: RepoRef, branches: Map<string, string>): void {
    this.testBranches.set(repoKey(repo), { at: this.now(), branches });
  }

  /** A test branch this adapter created or moved (sha) or deleted (null). */
  testBranchMoved(repo: RepoRef, branch: string, sha: string | null): void {
    const entry = this.testBranches.get(repoKey(repo));
    if (!entry) return;
    if (sha === null) entry.branches.delete(branch);
    else entry.branches.set(branch, sha);
  }

  /** The sha of a test branch as this adapter last knew it, fresh or not known. */
  testBranchSha(repo: RepoRef, branch: string): string | null | undefined {
    const branches = this.branchesOf(repo);
    if (!branches) return undefined;
    return branches.get(branch) ?? null;
  }

  pullRead(repo: RepoRef, view: PullView, author?: { login: string; id: number }): void {
    this.pulls.set(`${repoKey(repo)}#${view.number}`, view);
    if (author) this.authors.set(`${repoKey(repo)}@${view.headSha}`, author);
  }

  recentPull(repo: RepoRef, number: number): PullView | undefined {
    return this.pulls.get(`${repoKey(repo)}#${number}`);
  }

  authorOf(repo: RepoRef, headSha: string): { login: string; id: number } | undefined {
    return this.authors.get(`${repoKey(repo)}@${headSha}`);
  }

  built(repo: RepoRef, numbers: readonly number[], method: MergeMethod): void {
    for (const n of numbers) this.methods.set(`${repoKey(repo)}#${n}`, method);
  }

  methodOf(repo: RepoRef, number: number): MergeMethod | undefined {
    return this.methods.get(`${repoKey(repo)}#${number}`);
  }

  landedOn(repo: RepoRef, branch: string, sha: string): void {
    this.heads.set(`${repoKey(repo)}:${branch}`, sha);
    this.landed.set(`${repoKey(repo)}:${branch}`, sha);
  }

  lastLanding(repo: RepoRef, branch: string): string | undefined {
    return this.landed.get(`${repoKey(repo)}:${branch}`);
  }

  knownHead(repo: RepoRef, branch: string): string | undefined {
    return this.heads.get(`${repoKey(repo)}:${branch}`);
  }

  closedAfterLanding(repo: RepoRef, number: number): void {
    this.landedClosed.set(`${repoKey(repo)}#${number}`, true);
  }

  wasClosedAfterLanding(repo: RepoRef, number: number): boolean {
    return this.landedClosed.has(`${repoKey(repo)}#${number}`);
  }

  /** A webhook named something: what this adapter remembers of it is stale. */
  forget(event: { kind: string; repo: RepoRef; number?: number; branch?: string; sha?: string; report?: ReportKind }): void {
    const key = repoKey(event.repo);
    if (event.kind === 'pull' && event.number !== undefined) this.pulls.delete(`${key}#${event.number}`);
    if (event.kind === 'status' && event.sha !== undefined) {
      const at = `${key}@${event.sha}`;
      for (const kind of ['status', 'check'] as const) {
        if (event.report !== undefined && event.report !== kind) continue;
        this.heard.set(`${kind}:${at}`, true);
        this.reports[kind].delete(at);
      }
    }
    if (event.kind === 'branch' && event.branch !== undefined) this.heads.delete(`${key}:${event.branch}`);
    if (event.kind === 'resync') {
      this.testBranches.delete(key);
      for (const k of [...this.heads.keys()]) if (k.startsWith(`${key}:`)) this.heads.delete(k);
      for (const cache of Object.values(this.reports)) for (const k of [...cache.keys()]) if (k.startsWith(`${key}@`)) cache.delete(k);
    }
  }
}

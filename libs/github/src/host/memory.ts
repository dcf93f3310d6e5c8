import type { MergeMethod, RepoRef } from '@railyard/domain';
import { LRUCache } from 'lru-cache';
import type { PullView } from './repo-api';

const repoKey = (repo: RepoRef): string => `${repo.host}/${repo.owner}/${repo.name}`.toLowerCase();

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

  constructor(
    private readonly listTtlMs: number,
    pullTtlMs: number,
    headTtlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.pulls = new LRUCache({ max: 10_000, ttl: pullTtlMs });
    this.heads = new LRUCache({ max: 10_000, ttl: headTtlMs });
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
  forget(event: { kind: string; repo: RepoRef; number?: number; branch?: string }): void {
    const key = repoKey(event.repo);
    if (event.kind === 'pull' && event.number !== undefined) this.pulls.delete(`${key}#${event.number}`);
    if (event.kind === 'branch' && event.branch !== undefined) this.heads.delete(`${key}:${event.branch}`);
    if (event.kind === 'resync') {
      this.testBranches.delete(key);
      for (const k of [...this.heads.keys()]) if (k.startsWith(`${key}:`)) this.heads.delete(k);
    }
  }
}

import type { Mergeability, PullRequestSnapshot, RepoRef } from '@railyard/domain';
import type { GitHost } from '../port';
import { LruCache } from './lru';
import { mergeTree } from './merge-tree';
import { isValidPrNumber, repoDirOf } from './names';
import { pullHeadRefOf, readPullFile } from './pull-file';
import { RefReader } from './refs';
import { Semaphore } from './semaphore';

export interface LocalGitHostOptions {
  /** Directory holding `<host>/<owner>/<name>.git`. */
  root: string;
  /** Mergeability answers kept, keyed by (repository, base sha, head sha). */
  mergeabilityCacheSize?: number;
  /** git processes allowed at once, so a burst of cache misses cannot fork-bomb the machine. */
  maxConcurrentGit?: number;
}

export interface LocalGitHostStats {
  mergeTreeRuns: number;
  mergeabilityCacheHits: number;
}

/**
 * The GitHost over bare repositories on local disk. Refs and PR files are read from the filesystem
 * on every call, so answers are always current; git itself runs only to compute the mergeability of
 * a (base, head) pair it has not seen, and that answer is cached since it cannot change.
 */
export class LocalGitHost implements GitHost {
  readonly root: string;
  private readonly refs = new RefReader();
  private readonly mergeability: LruCache<string, Mergeability>;
  private readonly inFlight = new Map<string, Promise<Mergeability>>();
  private readonly gitSlots: Semaphore;
  private readonly counters: LocalGitHostStats = { mergeTreeRuns: 0, mergeabilityCacheHits: 0 };

  constructor(opts: LocalGitHostOptions) {
    this.root = opts.root;
    this.mergeability = new LruCache(opts.mergeabilityCacheSize ?? 50_000);
    this.gitSlots = new Semaphore(opts.maxConcurrentGit ?? 4);
  }

  async getPullRequest(repo: RepoRef, number: number): Promise<PullRequestSnapshot | null> {
    const gitDir = repoDirOf(this.root, repo);
    if (gitDir === null || !isValidPrNumber(number)) return null;
    const [pull, headSha] = await Promise.all([readPullFile(gitDir, number), this.refs.read(gitDir, pullHeadRefOf(number))]);
    if (pull === null || headSha === null) return null;
    return {
      number,
      title: pull.title,
      author: pull.author,
      headSha,
      baseBranch: pull.baseBranch,
      state: pull.state,
      // Closed and merged PRs cannot be merged (again): no reason to ask git.
      mergeability: pull.state === 'open' ? await this.mergeabilityOf(gitDir, pull.baseBranch, headSha) : 'not_mergeable',
    };
  }

  /** How much work the cache saved; for metrics and for tests that must see git was not run. */
  stats(): LocalGitHostStats {
    return { ...this.counters };
  }

  async close(): Promise<void> {
    this.mergeability.clear();
    this.refs.clear();
  }

  private async mergeabilityOf(gitDir: string, baseBranch: string, headSha: string): Promise<Mergeability> {
    const baseSha = await this.refs.read(gitDir, `refs/heads/${baseBranch}`);
    // No branch to merge into: not mergeable until it exists. Not cached, since it is keyed by no sha.
    if (baseSha === null) return 'not_mergeable';
    const key = `${gitDir}\0${baseSha}\0${headSha}`;
    const known = this.mergeability.get(key);
    if (known !== undefined) {
      this.counters.mergeabilityCacheHits++;
      return known;
    }
    // Many requests for one PR arrive together after a push; one git run answers them all.
    let pending = this.inFlight.get(key);
    if (pending === undefined) {
      pending = this.gitSlots
        .run(async () => {
          this.counters.mergeTreeRuns++;
          const result = await mergeTree(gitDir, baseSha, headSha);
          return result.clean ? 'mergeable' : 'not_mergeable';
        })
        .then((answer: Mergeability) => {
          this.mergeability.set(key, answer);
          return answer;
        })
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }
}

import type { Mergeability, PullRequestSnapshot, RepoRef } from '@railyard/domain';
import type { GitHost } from '../port';
import { LRUCache } from 'lru-cache';
import pLimit from 'p-limit';
import { mergeTree } from './merge-tree';
import { isValidPrNumber, repoDirOf } from './names';
import { pullHeadOf, readPullFile, storedMergeabilityFor, type PullFile } from './pull-file';
import { RefReader } from './refs';

export interface LocalGitHostOptions {
  /** Directory holding `<host>/<owner>/<name>.git`. */
  root: string;
  /** Mergeability answers kept, keyed by (repository, base sha, head sha). */
  mergeabilityCacheSize?: number;
  /** git processes allowed at once, so a burst of cache misses cannot fork-bomb the machine. */
  maxConcurrentGit?: number;
  /** Niceness of the merges that work out mergeability: the engine's background work yields the CPU to requests. */
  niceness?: number;
}

const snapshotOf = (p: Omit<PullRequestSnapshot, 'mergeability'>): Omit<PullRequestSnapshot, 'mergeability'> => ({
  number: p.number,
  title: p.title,
  author: p.author,
  headSha: p.headSha,
  baseBranch: p.baseBranch,
  ...(p.headBranch ? { headBranch: p.headBranch } : {}),
  state: p.state,
});

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
  private readonly mergeability: LRUCache<string, Mergeability>;
  private readonly inFlight = new Map<string, Promise<Mergeability>>();
  private readonly gitSlots: pLimit.Limit;
  private readonly counters: LocalGitHostStats = { mergeTreeRuns: 0, mergeabilityCacheHits: 0 };
  private readonly niceness: number | undefined;

  constructor(opts: LocalGitHostOptions) {
    this.root = opts.root;
    this.mergeability = new LRUCache({ max: opts.mergeabilityCacheSize ?? 50_000 });
    this.gitSlots = pLimit(opts.maxConcurrentGit ?? 4);
    this.niceness = opts.niceness;
  }

  /**
   * The PR now. Mergeability is worked out with git unless `mergeability: 'known'` asks only for what
   * is known without it: the answer cached here, or the one the admin stored in the PR file when it
   * opened or updated the PR, while base and head are still at the commits it was worked out for.
   */
  async getPullRequest(
    repo: RepoRef,
    number: number,
    opts: { mergeability?: 'compute' | 'known' } = {},
  ): Promise<PullRequestSnapshot | null> {
    const pull = await this.readPull(repo, number);
    if (pull === null) return null;
    // Closed and merged PRs cannot be merged (again): no reason to ask git.
    if (pull.state !== 'open') return { ...snapshotOf(pull), mergeability: 'not_mergeable' };
    const compute = opts.mergeability !== 'known';
    const mergeability = await this.mergeabilityAt(pull.gitDir, pull.baseBranch, pull.headSha, compute, pull.file);
    return { ...snapshotOf(pull), mergeability };
  }

  /** The PR without its mergeability (the file and the head ref only: no git process), or null. */
  async readPull(
    repo: RepoRef,
    number: number,
  ): Promise<(Omit<PullRequestSnapshot, 'mergeability'> & { gitDir: string; file: PullFile }) | null> {
    const gitDir = repoDirOf(this.root, repo);
    if (gitDir === null || !isValidPrNumber(number)) return null;
    const pull = await readPullFile(gitDir, number);
    if (pull === null) return null;
    const headSha = await pullHeadOf(this.refs, gitDir, number, pull);
    if (headSha === null) return null;
    return {
      gitDir,
      file: pull,
      number,
      title: pull.title,
      author: pull.author,
      headSha,
      baseBranch: pull.baseBranch,
      ...(pull.headBranch ? { headBranch: pull.headBranch } : {}),
      state: pull.state,
    };
  }

  /** The mergeability of `headSha` into the base branch's head now; runs git only for a pair it has not seen. */
  async mergeabilityOf(gitDir: string, baseBranch: string, headSha: string): Promise<Mergeability> {
    return this.mergeabilityAt(gitDir, baseBranch, headSha, true);
  }

  /** As mergeabilityOf, without git: from the cache or the PR file's stored answer; `unspecified` (or `in_progress`) otherwise. */
  async knownMergeability(gitDir: string, baseBranch: string, headSha: string, pull?: PullFile): Promise<Mergeability> {
    return this.mergeabilityAt(gitDir, baseBranch, headSha, false, pull);
  }

  /** How much work the cache saved; for metrics and for tests that must see git was not run. */
  stats(): LocalGitHostStats {
    return { ...this.counters };
  }

  async close(): Promise<void> {
    this.mergeability.clear();
    this.refs.clear();
  }

  private async mergeabilityAt(
    gitDir: string,
    baseBranch: string,
    headSha: string,
    compute: boolean,
    pull?: PullFile,
  ): Promise<Mergeability> {
    const baseSha = await this.refs.read(gitDir, `refs/heads/${baseBranch}`);
    // No branch to merge into: not mergeable until it exists. Not cached, since it is keyed by no sha.
    if (baseSha === null) return 'not_mergeable';
    const key = `${gitDir}\0${baseSha}\0${headSha}`;
    const known = this.mergeability.get(key);
    if (known !== undefined) {
      this.counters.mergeabilityCacheHits++;
      return known;
    }
    const stored = pull && storedMergeabilityFor(pull, baseSha, headSha);
    if (stored) return stored;
    if (!compute) return this.inFlight.has(key) ? 'in_progress' : 'unspecified';
    // Many requests for one PR arrive together after a push; one git run answers them all.
    let pending = this.inFlight.get(key);
    if (pending === undefined) {
      pending = this.gitSlots(async () => {
        this.counters.mergeTreeRuns++;
        const result = await mergeTree(gitDir, baseSha, headSha, this.niceness !== undefined ? { niceness: this.niceness } : {});
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

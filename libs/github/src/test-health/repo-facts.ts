import { repoSlug } from '@railyard/domain';
import { isGitHostError, type GitHostErrorCode } from '@railyard/githost';
import {
  CODEOWNERS_PATHS,
  isTestRunId,
  parseCodeowners,
  RepoFactsUnavailable,
  type Codeowners,
  type RepoFacts,
  type RepoRef,
} from '@railyard/testhealth';
import { LRUCache } from 'lru-cache';
import type { GithubApp } from '../github-app';
import { RepoApi } from '../host/repo-api';
import { messageOf, RepoClients, statusOf } from '../host/repo-client';
import { repoKey } from '../host/repo-key';
import { TEST_BRANCH_PREFIX } from '../host/test-branch';

export interface GithubRepoFactsOptions {
  app: GithubApp;
  /** How long a repository's default branch and its head are trusted before GitHub is asked again. */
  ttlMs?: number;
}

const EMPTY_CODEOWNERS = parseCodeowners('');
const FULL_SHA = /^[0-9a-f]{40}$/;
/** A default branch can be renamed and its head moves with every landing: both are re-read after this. */
const DEFAULT_TTL_MS = 30_000;
/** What GitHub does not show: answered as absent, not as an outage. */
const ABSENT = new Set<GitHostErrorCode>(['INVALID_INPUT', 'REPO_NOT_FOUND', 'REVISION_NOT_FOUND', 'BRANCH_NOT_FOUND']);

/**
 * Test health's RepoFacts on GitHub, through the App's installation client (the same client,
 * throttling and retries as the code-host adapter). Calls: the repository (exists, default branch),
 * the git commit (its tree, cached for good: a commit never changes), the default branch's ref and
 * the contents of the CODEOWNERS paths at that head (cached by head sha), and the matching refs under
 * `railyard-merge/` (docs/github.md, "What test health reads"). A repository the App is not installed
 * on reads as absent; a GitHub that does not answer throws RepoFactsUnavailable.
 */
export class GithubRepoFacts implements RepoFacts {
  private readonly clients: RepoClients;
  private readonly branches: LRUCache<string, Promise<string | null>>;
  private readonly heads: LRUCache<string, Promise<string | null>>;
  private readonly owners = new LRUCache<string, Promise<Codeowners>>({ max: 256 });

  constructor(opts: GithubRepoFactsOptions) {
    this.clients = new RepoClients(opts.app);
    const ttl = opts.ttlMs ?? DEFAULT_TTL_MS;
    this.branches = new LRUCache({ max: 1_000, ttl });
    this.heads = new LRUCache({ max: 1_000, ttl });
  }

  async exists(repo: RepoRef): Promise<boolean> {
    return (await this.defaultBranch(repo)) !== null;
  }

  defaultBranch(repo: RepoRef): Promise<string | null> {
    return this.remembered(this.branches, repoKey(repo), () => this.ask(repo, 'the repository', null, async (api) => api.defaultBranch()));
  }

  async treeOf(repo: RepoRef, sha: string): Promise<string | null> {
    if (!FULL_SHA.test(sha)) return null;
    return this.ask(repo, `commit ${sha}`, null, async (api) => (await api.commit(sha)).tree);
  }

  async testBranchOf(repo: RepoRef, testRunId: string): Promise<string | null> {
    if (!isTestRunId(testRunId)) return null;
    return this.ask(repo, 'the test branches', null, async (api) => {
      const branches = await api.branchesUnder(TEST_BRANCH_PREFIX);
      return branches.find((b) => b.branch.endsWith(`/${testRunId}`))?.branch ?? null;
    });
  }

  async codeowners(repo: RepoRef): Promise<Codeowners> {
    const branch = await this.defaultBranch(repo);
    if (branch === null) return EMPTY_CODEOWNERS;
    const head = await this.remembered(this.heads, `${repoKey(repo)}\u0000${branch}`, () =>
      this.ask(repo, `branch ${branch}`, null, (api) => api.branchSha(branch)),
    );
    if (head === null) return EMPTY_CODEOWNERS;
    return this.remembered(this.owners, `${repoKey(repo)}\u0000${head}`, () =>
      this.ask(repo, 'CODEOWNERS', EMPTY_CODEOWNERS, async (api) => {
        for (const file of CODEOWNERS_PATHS) {
          const text = await api.fileAt(file, head);
          if (text !== null) return parseCodeowners(text);
        }
        return EMPTY_CODEOWNERS;
      }),
    );
  }

  /**
   * One answer per key at a time, kept while the cache keeps it. Neither a failure nor an absence is
   * kept: the App may be installed, or the branch pushed, a moment later.
   */
  private remembered<T>(cache: LRUCache<string, Promise<T>>, key: string, read: () => Promise<T>): Promise<T> {
    const known = cache.get(key);
    if (known) return known;
    const answer = read();
    cache.set(key, answer);
    answer.then(
      (value) => {
        if (value === null && cache.get(key) === answer) cache.delete(key);
      },
      () => {
        if (cache.get(key) === answer) cache.delete(key);
      },
    );
    return answer;
  }

  /**
   * Runs `call` on the repository's client. What GitHub does not show (not installed, no such
   * repository or commit, a name GitHub does not allow) is `absent`; anything else means GitHub did
   * not answer, after the client's own retries.
   */
  private async ask<T>(repo: RepoRef, what: string, absent: T, call: (api: RepoApi) => Promise<T>): Promise<T> {
    try {
      return await call(new RepoApi(await this.clients.of(repo), repo));
    } catch (err) {
      if (isGitHostError(err) && ABSENT.has(err.code)) return absent;
      if (statusOf(err) === 404) return absent;
      throw new RepoFactsUnavailable(`GitHub did not answer for ${what} of ${repoSlug(repo)}: ${messageOf(err)}`, err);
    }
  }
}

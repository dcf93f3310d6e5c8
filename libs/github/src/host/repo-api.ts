import { formatRepo, githubAppReporter, githubUserReporter, repoSlug, type RepoRef } from '@railyard/domain';
import { GitHostError, isValidBranchName } from '@railyard/githost';
import { LRUCache } from 'lru-cache';
import type { GithubOctokit } from '../github-app';
import type { CheckRunView, StatusView } from './memory';
import { messageOf, orNullOn404, statusOf } from './repo-client';

/** A commit as the git data API shows it; commits never change, so they are cached by sha. */
export interface GitCommit {
  sha: string;
  tree: string;
  parents: string[];
  message: string;
  author: { name: string; email: string; date: string };
}

/** `changed`: the paths the merge commit changes on the branch, when GitHub listed them all (it lists up to 300). */
export type MergeResult =
  { kind: 'merged'; sha: string; tree: string; changed?: readonly string[] } | { kind: 'conflict' } | { kind: 'nothing' };

/** GitHub lists at most this many files with a commit: a list this long may be cut short. */
const COMMIT_FILES_LIMIT = 300;

export interface PullView {
  number: number;
  title: string;
  author: string;
  authorId: number;
  headSha: string;
  /** The head's branch (of the fork, for a PR from one). */
  headBranch: string;
  /** The base repository's page (`https://github.com/acme/widgets`), for links. */
  repoUrl: string;
  baseBranch: string;
  state: 'open' | 'closed' | 'merged';
  draft: boolean;
  /** GitHub's `mergeable`: null while GitHub works it out. */
  mergeable: boolean | null;
}

const FULL_SHA = /^[0-9a-f]{40}$/;

/** Refuses anything but a full commit id before it becomes part of a URL or a request body. */
export const checkSha = (sha: string, what: string): string => {
  if (!FULL_SHA.test(sha)) throw new GitHostError('INVALID_INPUT', `${what} must be a full commit id, got ${JSON.stringify(sha)}`);
  return sha;
};

export const checkBranch = (branch: string): string => {
  if (!isValidBranchName(branch)) throw new GitHostError('INVALID_INPUT', `not a valid branch name: ${JSON.stringify(branch)}`);
  return branch;
};

const commits = new LRUCache<string, GitCommit>({ max: 20_000 });
/** Trees and blobs never change either: cached by sha. */
const trees = new LRUCache<string, { path: string; type: string; sha: string }[]>({ max: 5_000 });
/** Empties the caches of git objects (commits, trees, blobs) and PR answers: a benchmark measures each case from cold. */
export const forgetGitObjects = (): void => {
  commits.clear();
  trees.clear();
  blobs.clear();
  pulls.clear();
};

/** The last answer to each PR read with its etag, for conditional reads (a 304 costs no budget). */
const pulls = new LRUCache<string, { etag: string; view: PullView }>({ max: 10_000 });

const blobs = new LRUCache<string, string>({ max: 2_000, maxSize: 16 * 1024 * 1024, sizeCalculation: (text) => Math.max(1, text.length) });

/** GitHub's git commit object (read or written) as the port's GitCommit. */
const gitCommitOf = (c: {
  sha: string;
  tree: { sha: string };
  parents: { sha: string }[];
  message: string;
  author: { name: string; email: string; date: string };
}): GitCommit => ({
  sha: c.sha,
  tree: c.tree.sha,
  parents: c.parents.map((p) => p.sha),
  message: c.message,
  author: { name: c.author.name, email: c.author.email, date: c.author.date },
});

/**
 * The REST calls of one repository the adapter makes, each one request (the adapter counts them per
 * merged PR: docs/benchmarks.md). Names are checked here, where they become URLs.
 */
export class RepoApi {
  private readonly params: { owner: string; repo: string };

  constructor(
    readonly octokit: GithubOctokit,
    readonly repo: RepoRef,
  ) {
    this.params = { owner: repo.owner, repo: repo.name };
  }

  private cacheKey(sha: string): string {
    return `${formatRepo(this.repo)}\0${sha}`;
  }

  async branchSha(branch: string): Promise<string | null> {
    const res = await orNullOn404(
      this.octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...this.params, ref: `heads/${checkBranch(branch)}` }),
    );
    return res === null ? null : res.data.object.sha;
  }

  /** The branches under `prefix` (`railyard-merge/`), with their shas. */
  async branchesUnder(prefix: string): Promise<{ branch: string; sha: string }[]> {
    const res = await this.octokit.request('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', {
      ...this.params,
      ref: `heads/${prefix}`,
    });
    return res.data.map((r) => ({ branch: r.ref.slice('refs/heads/'.length), sha: r.object.sha }));
  }

  /** Creates the branch; false when it exists already. */
  async createBranch(branch: string, sha: string): Promise<boolean> {
    try {
      await this.octokit.request('POST /repos/{owner}/{repo}/git/refs', {
        ...this.params,
        ref: `refs/heads/${checkBranch(branch)}`,
        sha: checkSha(sha, 'sha'),
      });
      return true;
    } catch (err) {
      if (statusOf(err) === 422 && /already exists/i.test(messageOf(err))) return false;
      throw err;
    }
  }

  /** PATCH git/refs; throws the Octokit error as it came (the caller decides what a 422 means). */
  async updateBranch(branch: string, sha: string, force: boolean): Promise<void> {
    await this.octokit.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', {
      ...this.params,
      ref: `heads/${checkBranch(branch)}`,
      sha: checkSha(sha, 'sha'),
      force,
    });
  }

  /** Deletes the branch; a branch that is gone already is not an error. */
  async deleteBranch(branch: string): Promise<void> {
    try {
      await this.octokit.request('DELETE /repos/{owner}/{repo}/git/refs/{ref}', { ...this.params, ref: `heads/${checkBranch(branch)}` });
    } catch (err) {
      const status = statusOf(err);
      if (status === 404 || (status === 422 && /does not exist/i.test(messageOf(err)))) return;
      throw err;
    }
  }

  async commit(sha: string): Promise<GitCommit> {
    const key = this.cacheKey(checkSha(sha, 'commit'));
    const known = commits.get(key);
    if (known) return known;
    const res = await orNullOn404(
      this.octokit.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { ...this.params, commit_sha: sha }),
    );
    if (res === null) throw new GitHostError('REVISION_NOT_FOUND', `no commit ${sha} in ${repoSlug(this.repo)}`);
    const commit = gitCommitOf(res.data);
    commits.set(key, commit);
    return commit;
  }

  /** Writes a commit; no ref moves. */
  async createCommit(input: { tree: string; parents: string[]; message: string; author?: GitCommit['author'] }): Promise<GitCommit> {
    const res = await this.octokit.request('POST /repos/{owner}/{repo}/git/commits', {
      ...this.params,
      tree: checkSha(input.tree, 'tree'),
      parents: input.parents.map((p) => checkSha(p, 'parent')),
      message: input.message,
      ...(input.author ? { author: input.author } : {}),
    });
    const commit = gitCommitOf(res.data);
    commits.set(this.cacheKey(commit.sha), commit);
    return commit;
  }

  /** Learns a commit's tree without a request (a commit the adapter wrote or read another way). */
  remember(commit: GitCommit): void {
    commits.set(this.cacheKey(commit.sha), commit);
  }

  /** `POST /merges`: merges `head` into the branch `base` and moves it; 409 is a conflict, 204 nothing to merge. */
  async merge(base: string, head: string, message: string): Promise<MergeResult> {
    try {
      const res = await this.octokit.request('POST /repos/{owner}/{repo}/merges', {
        ...this.params,
        base: checkBranch(base),
        head: checkSha(head, 'head'),
        commit_message: message,
      });
      if ((res.status as number) === 204) return { kind: 'nothing' };
      const data = res.data as {
        sha: string;
        commit: { tree: { sha: string }; message: string; author: { name?: string; email?: string; date?: string } | null };
        parents: { sha: string }[];
        files?: { filename: string; previous_filename?: string }[];
      };
      this.remember({
        sha: data.sha,
        tree: data.commit.tree.sha,
        parents: data.parents.map((p) => p.sha),
        message: data.commit.message,
        author: { name: data.commit.author?.name ?? '', email: data.commit.author?.email ?? '', date: data.commit.author?.date ?? '' },
      });
      const files = data.files;
      if (files === undefined || files.length >= COMMIT_FILES_LIMIT) return { kind: 'merged', sha: data.sha, tree: data.commit.tree.sha };
      const changed = files.flatMap((f) => (f.previous_filename === undefined ? [f.filename] : [f.filename, f.previous_filename]));
      return { kind: 'merged', sha: data.sha, tree: data.commit.tree.sha, changed };
    } catch (err) {
      if (statusOf(err) === 409) return { kind: 'conflict' };
      throw err;
    }
  }

  /** GitHub's comparison of `base...head`: `behind` or `identical` means head is in base's history. */
  async compare(base: string, head: string): Promise<{ status: string; baseSha: string; baseUrl: string }> {
    const res = await orNullOn404(
      this.octokit.request('GET /repos/{owner}/{repo}/compare/{basehead}', { ...this.params, basehead: `${base}...${head}`, per_page: 1 }),
    );
    if (res === null) throw new GitHostError('REVISION_NOT_FOUND', `cannot compare ${base} and ${head} in ${repoSlug(this.repo)}`);
    return { status: res.data.status, baseSha: res.data.base_commit.sha, baseUrl: res.data.base_commit.html_url };
  }

  /** The commits of `base..head`, oldest first (GitHub lists at most 250 in a comparison). */
  async commitsBetween(base: string, head: string): Promise<GitCommit[]> {
    const res = await orNullOn404(
      this.octokit.request('GET /repos/{owner}/{repo}/compare/{basehead}', {
        ...this.params,
        basehead: `${checkSha(base, 'base')}...${checkSha(head, 'head')}`,
      }),
    );
    if (res === null) throw new GitHostError('REVISION_NOT_FOUND', `cannot compare ${base} and ${head} in ${repoSlug(this.repo)}`);
    if (res.data.total_commits > res.data.commits.length)
      throw new GitHostError(
        'INVALID_INPUT',
        `${head} is ${res.data.total_commits} commits ahead of ${base}; a rebase through the API takes at most ${res.data.commits.length}`,
      );
    return res.data.commits.map((c) => {
      const commit: GitCommit = {
        sha: c.sha,
        tree: c.commit.tree.sha,
        parents: c.parents.map((p) => p.sha),
        message: c.commit.message,
        author: { name: c.commit.author?.name ?? '', email: c.commit.author?.email ?? '', date: c.commit.author?.date ?? '' },
      };
      this.remember(commit);
      return commit;
    });
  }

  /**
   * The PR now. Asked conditionally with the etag of the last answer: GitHub answers 304 when nothing
   * changed, which does not count against the installation's hourly budget, and the last answer holds.
   */
  async pull(number: number): Promise<PullView | null> {
    const key = this.cacheKey(`#${number}`);
    const known = pulls.get(key);
    let res;
    try {
      res = await orNullOn404(
        this.octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
          ...this.params,
          pull_number: number,
          ...(known ? { headers: { 'if-none-match': known.etag } } : {}),
        }),
      );
    } catch (err) {
      if (known && statusOf(err) === 304) return known.view;
      throw err;
    }
    if (res === null) return null;
    const p = res.data;
    const view: PullView = {
      number: p.number,
      title: p.title,
      author: p.user.login,
      authorId: Number(p.user.id),
      repoUrl: p.base.repo.html_url,
      headSha: p.head.sha,
      headBranch: p.head.ref,
      baseBranch: p.base.ref,
      state: p.merged ? 'merged' : p.state === 'open' ? 'open' : 'closed',
      draft: p.draft === true,
      mergeable: p.mergeable,
    };
    const etag = res.headers.etag;
    if (etag) pulls.set(key, { etag, view });
    return view;
  }

  async closePull(number: number): Promise<void> {
    await this.octokit.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', { ...this.params, pull_number: number, state: 'closed' });
  }

  async comment(number: number, body: string): Promise<void> {
    await this.octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...this.params, issue_number: number, body });
  }

  /** Commit statuses of `sha`, newest first, as GitHub lists them (one page of 100). */
  async commitStatuses(sha: string): Promise<StatusView[]> {
    const res = await this.octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/statuses', {
      ...this.params,
      ref: checkSha(sha, 'sha'),
      per_page: 100,
    });
    return res.data.map((s) => ({
      context: s.context,
      state: s.state,
      url: s.target_url,
      reporter: s.creator?.login ? githubUserReporter(s.creator.login) : null,
    }));
  }

  /** Check runs of `sha` (the latest of each name, as GitHub filters by default). */
  async checkRuns(sha: string): Promise<CheckRunView[]> {
    return this.listCheckRuns(sha, {});
  }

  /** Every check run named `name` on `sha`, each attempt of it (`filter=all`). */
  async checkRunsNamed(sha: string, name: string): Promise<CheckRunView[]> {
    return this.listCheckRuns(sha, { check_name: name, filter: 'all' });
  }

  private async listCheckRuns(sha: string, query: { check_name?: string; filter?: 'all' | 'latest' }): Promise<CheckRunView[]> {
    const res = await this.octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
      ...this.params,
      ref: checkSha(sha, 'sha'),
      per_page: 100,
      ...query,
    });
    return res.data.check_runs.map((r) => ({
      id: Number(r.id),
      suiteId: r.check_suite ? Number(r.check_suite.id) : null,
      name: r.name,
      status: r.status,
      conclusion: r.conclusion,
      url: r.details_url ?? r.html_url,
      reporter: r.app?.slug ? githubAppReporter(r.app.slug) : null,
      startedAt: r.started_at,
      completedAt: r.completed_at,
    }));
  }

  /**
   * Asks GitHub to run a check suite again on its commit: GitHub tells the App that owns it (GitHub
   * Actions, another CI's App), which reports new check runs. A check run of another App cannot be
   * re-requested alone (GitHub answers 403), its suite can.
   */
  async rerequestSuite(suiteId: number): Promise<void> {
    await this.octokit.request('POST /repos/{owner}/{repo}/check-suites/{check_suite_id}/rerequest', {
      ...this.params,
      check_suite_id: suiteId,
    });
  }

  /** Comments on the PR written by the App `appId`. */
  async appComments(number: number, appId: number): Promise<string[]> {
    const res = await this.octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...this.params,
      issue_number: number,
      per_page: 100,
    });
    return res.data.filter((c) => c.performed_via_github_app?.id === appId).map((c) => c.body ?? '');
  }

  /** A file's text at `ref`, or null when it is not there. */
  async fileAt(path: string, ref: string): Promise<string | null> {
    const res = await orNullOn404(this.octokit.request('GET /repos/{owner}/{repo}/contents/{path}', { ...this.params, path, ref }));
    if (res === null) return null;
    const data = res.data as { type?: string; content?: string; encoding?: string };
    if (data.type !== 'file' || typeof data.content !== 'string') return null;
    return Buffer.from(data.content, data.encoding === 'base64' ? 'base64' : 'utf8').toString('utf8');
  }

  /** The status checks the branch's rulesets require (`required_status_checks` rules). */
  async rulesetChecks(branch: string): Promise<string[]> {
    const res = await this.octokit.request('GET /repos/{owner}/{repo}/rules/branches/{branch}', {
      ...this.params,
      branch: checkBranch(branch),
      per_page: 100,
    });
    const out: string[] = [];
    for (const rule of res.data as { type: string; parameters?: { required_status_checks?: { context: string }[] } }[])
      if (rule.type === 'required_status_checks') for (const c of rule.parameters?.required_status_checks ?? []) out.push(c.context);
    return out;
  }

  /**
   * The contexts classic branch protection requires; none when the branch is unprotected. An
   * installation without the administration permission cannot read it (403): none either, and the
   * rulesets (readable with metadata) still count.
   */
  async protectionChecks(branch: string): Promise<string[]> {
    try {
      const res = await this.octokit.request('GET /repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks', {
        ...this.params,
        branch: checkBranch(branch),
      });
      const data = res.data as { contexts?: string[]; checks?: { context: string }[] };
      return [...(data.contexts ?? []), ...(data.checks ?? []).map((c) => c.context)];
    } catch (err) {
      const status = statusOf(err);
      if (status === 404 || status === 403) return [];
      throw err;
    }
  }

  /** The entries of a tree (one level), cached by its sha. */
  async tree(treeSha: string): Promise<{ path: string; type: string; sha: string }[]> {
    const key = this.cacheKey(checkSha(treeSha, 'tree'));
    const known = trees.get(key);
    if (known) return known;
    const res = await this.octokit.request('GET /repos/{owner}/{repo}/git/trees/{tree_sha}', { ...this.params, tree_sha: treeSha });
    const entries = res.data.tree.flatMap((e) => (e.path && e.type && e.sha ? [{ path: e.path, type: e.type, sha: e.sha }] : []));
    trees.set(key, entries);
    return entries;
  }

  /** The text of the blob `blobSha`, which is `path` at `ref`: read once per blob (contents API), then cached. */
  async blobText(blobSha: string, path: string, ref: string): Promise<string | null> {
    const key = this.cacheKey(checkSha(blobSha, 'blob'));
    const known = blobs.get(key);
    if (known !== undefined) return known;
    const text = await this.fileAt(path, ref);
    if (text !== null) blobs.set(key, text);
    return text;
  }

  /** The repository's default branch (`GET /repos/{owner}/{repo}`), or null when GitHub shows no such repository. */
  async defaultBranch(): Promise<string | null> {
    const res = await orNullOn404(this.octokit.request('GET /repos/{owner}/{repo}', this.params));
    return res === null ? null : res.data.default_branch;
  }
}

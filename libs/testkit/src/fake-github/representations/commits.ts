import type { CommitObject, FileChange } from '../git';
import type { FakeRepo } from '../model';
import { repoApiUrl, repoHtmlUrl } from './repos';
import { nodeId } from './urls';
import type { View } from './view';

const UNSIGNED = { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null };

/** GitHub's `git-commit` (the git data API's view of a commit). */
export const gitCommit = (repo: FakeRepo, commit: CommitObject, view: View) => {
  const api = repoApiUrl(repo, view);
  return {
    sha: commit.sha,
    node_id: nodeId('C', commit.sha),
    url: `${api}/git/commits/${commit.sha}`,
    html_url: `${repoHtmlUrl(repo, view)}/commit/${commit.sha}`,
    author: commit.author,
    committer: commit.committer,
    message: commit.message,
    tree: { sha: commit.tree, url: `${api}/git/trees/${commit.tree}` },
    parents: commit.parents.map((sha) => ({ sha, url: `${api}/git/commits/${sha}`, html_url: `${repoHtmlUrl(repo, view)}/commit/${sha}` })),
    verification: UNSIGNED,
  };
};

/** GitHub's `commit` (the repository API's view: the git commit wrapped with links and accounts). */
export const repoCommit = (repo: FakeRepo, commit: CommitObject, view: View) => {
  const api = repoApiUrl(repo, view);
  const html = repoHtmlUrl(repo, view);
  return {
    url: `${api}/commits/${commit.sha}`,
    sha: commit.sha,
    node_id: nodeId('C', commit.sha),
    html_url: `${html}/commit/${commit.sha}`,
    comments_url: `${api}/commits/${commit.sha}/comments`,
    commit: {
      url: `${api}/git/commits/${commit.sha}`,
      author: commit.author,
      committer: commit.committer,
      message: commit.message,
      comment_count: 0,
      tree: { sha: commit.tree, url: `${api}/git/trees/${commit.tree}` },
      verification: UNSIGNED,
    },
    // GitHub links a commit to an account by e-mail; the fake's commits come from scripts, not accounts.
    author: null,
    committer: null,
    parents: commit.parents.map((sha) => ({ sha, url: `${api}/commits/${sha}`, html_url: `${html}/commit/${sha}` })),
  };
};

/** GitHub's `simple-commit` (what check suites and push events embed). */
export const simpleCommit = (commit: CommitObject) => ({
  id: commit.sha,
  tree_id: commit.tree,
  message: commit.message,
  timestamp: commit.committer.date,
  author: { name: commit.author.name, email: commit.author.email },
  committer: { name: commit.committer.name, email: commit.committer.email },
});

/** GitHub lists at most this many files with a commit. */
const COMMIT_FILES_LIMIT = 300;

/** A commit's `files` (GitHub's `diff-entry`s) against its first parent, as the commit answers (the merges API's too) carry them. */
export const commitFiles = (repo: FakeRepo, commit: CommitObject, changes: readonly FileChange[], view: View) => {
  const api = repoApiUrl(repo, view);
  const html = repoHtmlUrl(repo, view);
  return changes.slice(0, COMMIT_FILES_LIMIT).map((c) => ({
    sha: c.blob,
    filename: c.path,
    status: c.status,
    additions: c.additions,
    deletions: c.deletions,
    changes: c.additions + c.deletions,
    blob_url: `${html}/blob/${commit.sha}/${c.path}`,
    raw_url: `${html}/raw/${commit.sha}/${c.path}`,
    contents_url: `${api}/contents/${c.path}?ref=${commit.sha}`,
  }));
};

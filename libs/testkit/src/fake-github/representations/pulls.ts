import type { FakeLabel, FakePull, FakeRepo } from '../model';
import { repoApiUrl, repoHtmlUrl, repository } from './repos';
import { simpleUser } from './users';
import { nodeId } from './urls';
import type { View } from './view';

/** What GitHub derives for a pull request at read time (from git and the checks), passed in by the caller. */
export interface PullDerived {
  baseSha: string;
  mergeable: boolean | null;
  mergeableState: string;
  commits: number;
  additions: number;
  deletions: number;
  changedFiles: number;
  comments: number;
}

export const label = (repo: FakeRepo, l: FakeLabel, view: View) => ({
  id: l.id,
  node_id: nodeId('LA', l.id),
  url: `${repoApiUrl(repo, view)}/labels/${encodeURIComponent(l.name)}`,
  name: l.name,
  description: null,
  color: l.color,
  default: false,
});

const authorAssociation = (pr: FakePull, base: FakeRepo): string => {
  if (pr.user.id === base.owner.id) return 'OWNER';
  return base.collaborators.has(pr.user.login) ? 'COLLABORATOR' : 'CONTRIBUTOR';
};

const branchSide = (repo: FakeRepo, ref: string, sha: string, view: View) => ({
  label: `${repo.owner.login}:${ref}`,
  ref,
  sha,
  user: simpleUser(repo.owner, view.urls),
  repo: repository(repo, view),
});

/** The fields `pull-request` and `pull-request-simple` share. */
const pullCommon = (pr: FakePull, derived: Pick<PullDerived, 'baseSha'>, view: View) => {
  const base = view.state.repo(pr.repoId);
  const head = view.state.repo(pr.headRepoId);
  const api = repoApiUrl(base, view);
  const url = `${api}/pulls/${pr.number}`;
  const html = `${repoHtmlUrl(base, view)}/pull/${pr.number}`;
  const issue = `${api}/issues/${pr.number}`;
  const statuses = `${api}/statuses/${pr.headSha}`;
  return {
    url,
    id: pr.id,
    node_id: nodeId('PR', pr.id),
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: issue,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${api}/pulls/comments{/number}`,
    comments_url: `${issue}/comments`,
    statuses_url: statuses,
    number: pr.number,
    state: pr.state,
    locked: false,
    title: pr.title,
    user: simpleUser(pr.user, view.urls),
    body: pr.body,
    labels: pr.labels.map((l) => label(base, l, view)),
    milestone: null,
    active_lock_reason: null,
    created_at: pr.createdAt,
    updated_at: pr.updatedAt,
    closed_at: pr.closedAt,
    merged_at: pr.mergedAt,
    merge_commit_sha: pr.mergeCommitSha ?? pr.mergeability?.mergeCommitSha ?? null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: branchSide(head, pr.headRef, pr.headSha, view),
    base: branchSide(base, pr.baseRef, derived.baseSha, view),
    _links: {
      self: { href: url },
      html: { href: html },
      issue: { href: issue },
      comments: { href: `${issue}/comments` },
      review_comments: { href: `${url}/comments` },
      review_comment: { href: `${api}/pulls/comments{/number}` },
      commits: { href: `${url}/commits` },
      statuses: { href: statuses },
    },
    author_association: authorAssociation(pr, base),
    auto_merge: null,
    draft: pr.draft,
  };
};

/** GitHub's `pull-request-simple` (pull request lists). */
export const pullRequestSimple = (pr: FakePull, baseSha: string, view: View) => pullCommon(pr, { baseSha }, view);

/** GitHub's `pull-request` (one pull request, with what GitHub computes about it). */
export const pullRequest = (pr: FakePull, derived: PullDerived, view: View) => ({
  ...pullCommon(pr, derived, view),
  merged: pr.merged,
  mergeable: derived.mergeable,
  rebaseable: derived.mergeable,
  mergeable_state: derived.mergeableState,
  merged_by: pr.mergedBy === null ? null : simpleUser(pr.mergedBy, view.urls),
  comments: derived.comments,
  review_comments: 0,
  maintainer_can_modify: false,
  commits: derived.commits,
  additions: derived.additions,
  deletions: derived.deletions,
  changed_files: derived.changedFiles,
});

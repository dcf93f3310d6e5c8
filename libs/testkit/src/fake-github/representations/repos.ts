import type { FakeRepo } from '../model';
import { simpleUser } from './users';
import { nodeId } from './urls';
import type { View } from './view';

// The `*_url` hypermedia fields every repository representation carries: [field, path suffix].
const REPO_LINKS: [string, string][] = [
  ['archive_url', '/{archive_format}{/ref}'],
  ['assignees_url', '/assignees{/user}'],
  ['blobs_url', '/git/blobs{/sha}'],
  ['branches_url', '/branches{/branch}'],
  ['collaborators_url', '/collaborators{/collaborator}'],
  ['comments_url', '/comments{/number}'],
  ['commits_url', '/commits{/sha}'],
  ['compare_url', '/compare/{base}...{head}'],
  ['contents_url', '/contents/{+path}'],
  ['contributors_url', '/contributors'],
  ['deployments_url', '/deployments'],
  ['downloads_url', '/downloads'],
  ['events_url', '/events'],
  ['forks_url', '/forks'],
  ['git_commits_url', '/git/commits{/sha}'],
  ['git_refs_url', '/git/refs{/sha}'],
  ['git_tags_url', '/git/tags{/sha}'],
  ['hooks_url', '/hooks'],
  ['issue_comment_url', '/issues/comments{/number}'],
  ['issue_events_url', '/issues/events{/number}'],
  ['issues_url', '/issues{/number}'],
  ['keys_url', '/keys{/key_id}'],
  ['labels_url', '/labels{/name}'],
  ['languages_url', '/languages'],
  ['merges_url', '/merges'],
  ['milestones_url', '/milestones{/number}'],
  ['notifications_url', '/notifications{?since,all,participating}'],
  ['pulls_url', '/pulls{/number}'],
  ['releases_url', '/releases{/id}'],
  ['stargazers_url', '/stargazers'],
  ['statuses_url', '/statuses/{sha}'],
  ['subscribers_url', '/subscribers'],
  ['subscription_url', '/subscription'],
  ['tags_url', '/tags'],
  ['teams_url', '/teams'],
  ['trees_url', '/git/trees{/sha}'],
];

export const repoApiUrl = (repo: FakeRepo, view: View): string =>
  `${view.urls.api}/repos/${encodeURIComponent(repo.owner.login)}/${encodeURIComponent(repo.name)}`;

export const repoHtmlUrl = (repo: FakeRepo, view: View): string =>
  `${view.urls.html}/${encodeURIComponent(repo.owner.login)}/${encodeURIComponent(repo.name)}`;

const openPullCount = (repo: FakeRepo, view: View): number => view.state.pullsOf(repo.id).filter((pr) => pr.state === 'open').length;

/** GitHub's `repository` (what pull requests embed); `full-repository` adds to it. */
export const repository = (repo: FakeRepo, view: View) => {
  const url = repoApiUrl(repo, view);
  const html = repoHtmlUrl(repo, view);
  const open = openPullCount(repo, view);
  return {
    id: repo.id,
    node_id: nodeId('R', repo.id),
    name: repo.name,
    full_name: `${repo.owner.login}/${repo.name}`,
    owner: simpleUser(repo.owner, view.urls),
    private: repo.private,
    html_url: html,
    description: null,
    fork: repo.parentId !== null,
    url,
    ...Object.fromEntries(REPO_LINKS.map(([field, suffix]) => [field, `${url}${suffix}`])),
    git_url: `${html.replace(/^https?:/, 'git:')}.git`,
    ssh_url: `git@github.fake:${repo.owner.login}/${repo.name}.git`,
    clone_url: `${html}.git`,
    svn_url: html,
    mirror_url: null,
    homepage: null,
    language: null,
    license: null,
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers_count: 0,
    watchers: 0,
    size: 0,
    default_branch: repo.defaultBranch,
    open_issues_count: open,
    open_issues: open,
    is_template: false,
    topics: [] as string[],
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: repo.private ? 'private' : 'public',
    pushed_at: repo.createdAt,
    created_at: repo.createdAt,
    updated_at: repo.createdAt,
    allow_forking: true,
    web_commit_signoff_required: false,
    allow_merge_commit: true,
    allow_squash_merge: true,
    allow_rebase_merge: true,
    allow_auto_merge: false,
    delete_branch_on_merge: false,
  };
};

/** GitHub's `full-repository` (GET /repos/{owner}/{repo}). */
export const fullRepository = (repo: FakeRepo, view: View) => {
  const parent = repo.parentId === null ? undefined : view.state.repos.get(repo.parentId);
  return {
    ...repository(repo, view),
    subscribers_count: 0,
    network_count: 0,
    ...(parent ? { parent: repository(parent, view), source: repository(parent, view) } : {}),
  };
};

/** GitHub's `minimal-repository`. */
export const minimalRepository = (repo: FakeRepo, view: View) => {
  const full = repository(repo, view);
  return Object.fromEntries(Object.entries(full).filter(([key]) => !MINIMAL_OMITS.has(key)));
};

const MINIMAL_OMITS = new Set(['allow_merge_commit', 'allow_squash_merge', 'allow_rebase_merge', 'allow_auto_merge']);

import type { CommitObject } from './git';
import type { CheckRun, CheckSuite, CommitStatus, FakeInstallation, FakeLabel, FakePull, FakeRepo, FakeUser, IssueComment } from './model';
import { webhookSchemaKey } from './operations';
import { installation } from './representations/apps';
import { checkRun, checkSuite } from './representations/checks';
import { issueComment } from './representations/comments';
import { repoCommit } from './representations/commits';
import { label, pullRequest, type PullDerived } from './representations/pulls';
import { repoApiUrl, repoHtmlUrl, repository } from './representations/repos';
import { simpleUser } from './representations/users';
import { nodeId } from './representations/urls';
import type { View } from './representations/view';
import examples from './schemas/webhook-examples.json';

/**
 * Webhook payloads, each built on GitHub's published example of that event and action
 * (schemas/webhook-examples.json) with everything the fake knows put in its place, so fields the
 * fake does not model still carry realistic values.
 */

type Payload = Record<string, unknown>;

const EXAMPLES = examples.examples as Record<string, Payload>;
// Events GitHub publishes no example for are built on a sibling action's example.
const SIBLING: Record<string, string> = { 'pull-request-edited': 'pull-request-opened' };

const example = (event: string, action: string | null): Payload => {
  const key = webhookSchemaKey(event, action);
  const found = EXAMPLES[key] ?? EXAMPLES[SIBLING[key] ?? ''];
  if (!found) throw new Error(`no webhook example for ${key}`);
  const copy = structuredClone(found);
  // The example's organization and enterprise are other people's; the fake's accounts are users.
  delete copy.organization;
  delete copy.enterprise;
  return copy;
};

const object = (value: unknown): Payload => (typeof value === 'object' && value !== null ? (value as Payload) : {});

/** What every repository event carries besides its own fields. */
const envelope = (repo: FakeRepo, inst: FakeInstallation, sender: FakeUser, view: View) => ({
  repository: repository(repo, view),
  installation: { id: inst.id, node_id: nodeId('MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u', inst.id) },
  sender: simpleUser(sender, view.urls),
});

const repoSummary = (repo: FakeRepo) => ({
  id: repo.id,
  node_id: nodeId('R', repo.id),
  name: repo.name,
  full_name: `${repo.owner.login}/${repo.name}`,
  private: repo.private,
});

export const installationPayload = (action: string, inst: FakeInstallation, repos: FakeRepo[], sender: FakeUser, view: View) => ({
  ...example('installation', action),
  action,
  installation: installation(inst, view),
  repositories: repos.map(repoSummary),
  requester: null,
  sender: simpleUser(sender, view.urls),
});

export const installationRepositoriesPayload = (
  action: 'added' | 'removed',
  inst: FakeInstallation,
  changed: FakeRepo[],
  sender: FakeUser,
  view: View,
) => ({
  ...example('installation_repositories', action),
  action,
  installation: installation(inst, view),
  repository_selection: inst.repositorySelection,
  repositories_added: action === 'added' ? changed.map(repoSummary) : [],
  repositories_removed: action === 'removed' ? changed.map(repoSummary) : [],
  requester: null,
  sender: simpleUser(sender, view.urls),
});

export interface PullEventExtras {
  changes?: Record<string, { from: string }>;
  label?: FakeLabel;
  before?: string;
  after?: string;
}

export const pullRequestPayload = (
  action: string,
  pr: FakePull,
  derived: PullDerived,
  inst: FakeInstallation,
  sender: FakeUser,
  view: View,
  extras: PullEventExtras = {},
) => {
  const base = example('pull_request', action);
  const repo = view.state.repo(pr.repoId);
  return {
    ...base,
    action,
    number: pr.number,
    pull_request: { ...object(base.pull_request), ...pullRequest(pr, derived, view) },
    ...envelope(repo, inst, sender, view),
    ...(action === 'edited' ? { changes: extras.changes ?? {} } : {}),
    ...(extras.label ? { label: label(repo, extras.label, view) } : {}),
    ...(action === 'synchronize' ? { before: extras.before, after: extras.after } : {}),
  };
};

/** A pull request as the issue it also is, in the shape issue_comment events carry. */
const pullAsIssue = (template: Payload, pr: FakePull, comments: number, view: View) => {
  const repo = view.state.repo(pr.repoId);
  const api = repoApiUrl(repo, view);
  const issue = `${api}/issues/${pr.number}`;
  const html = `${repoHtmlUrl(repo, view)}/pull/${pr.number}`;
  return {
    ...template,
    url: issue,
    repository_url: api,
    labels_url: `${issue}/labels{/name}`,
    comments_url: `${issue}/comments`,
    events_url: `${issue}/events`,
    html_url: html,
    id: pr.id,
    node_id: nodeId('I', pr.id),
    number: pr.number,
    title: pr.title,
    user: simpleUser(pr.user, view.urls),
    labels: pr.labels.map((l) => label(repo, l, view)),
    state: pr.state,
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments,
    created_at: pr.createdAt,
    updated_at: pr.updatedAt,
    closed_at: pr.closedAt,
    author_association: pr.user.id === repo.owner.id ? 'OWNER' : 'CONTRIBUTOR',
    active_lock_reason: null,
    draft: pr.draft,
    pull_request: {
      url: `${api}/pulls/${pr.number}`,
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      merged_at: pr.mergedAt,
    },
    body: pr.body,
    performed_via_github_app: null,
    state_reason: null,
    reactions: {
      url: `${issue}/reactions`,
      total_count: 0,
      '+1': 0,
      '-1': 0,
      laugh: 0,
      hooray: 0,
      confused: 0,
      heart: 0,
      rocket: 0,
      eyes: 0,
    },
  };
};

export const issueCommentPayload = (
  action: 'created' | 'edited' | 'deleted',
  comment: IssueComment,
  pr: FakePull,
  comments: number,
  inst: FakeInstallation,
  sender: FakeUser,
  view: View,
  previousBody?: string,
) => {
  const base = example('issue_comment', action);
  return {
    ...base,
    action,
    issue: pullAsIssue(object(base.issue), pr, comments, view),
    comment: { ...object(base.comment), ...issueComment(comment, view) },
    ...envelope(view.state.repo(comment.repoId), inst, sender, view),
    ...(action === 'edited' ? { changes: { body: { from: previousBody ?? '' } } } : {}),
  };
};

export const checkRunPayload = (
  action: string,
  run: CheckRun,
  suite: Payload,
  pulls: FakePull[],
  inst: FakeInstallation,
  sender: FakeUser,
  view: View,
  requestedAction?: string,
) => {
  const base = example('check_run', action);
  return {
    ...base,
    action,
    check_run: { ...object(base.check_run), ...checkRun(run, pulls, view), check_suite: suite },
    ...envelope(view.state.repo(run.repoId), inst, sender, view),
    ...(requestedAction === undefined ? {} : { requested_action: { identifier: requestedAction } }),
  };
};

export const checkSuitePayload = (
  action: string,
  suite: CheckSuite,
  runs: CheckRun[],
  head: CommitObject,
  pulls: FakePull[],
  inst: FakeInstallation,
  sender: FakeUser,
  view: View,
) => {
  const base = example('check_suite', action);
  return {
    ...base,
    action,
    check_suite: { ...object(base.check_suite), ...checkSuite(suite, runs, head, pulls, view) },
    ...envelope(view.state.repo(suite.repoId), inst, sender, view),
  };
};

export const statusPayload = (
  status: CommitStatus,
  commit: CommitObject,
  branches: { name: string; sha: string; protected: boolean }[],
  inst: FakeInstallation,
  view: View,
) => {
  const repo = view.state.repo(status.repoId);
  const api = repoApiUrl(repo, view);
  return {
    ...example('status', null),
    id: status.id,
    sha: status.sha,
    name: `${repo.owner.login}/${repo.name}`,
    target_url: status.targetUrl,
    avatar_url: `${view.urls.html}/avatars/u/${status.creator.id}`,
    context: status.context,
    description: status.description,
    state: status.state,
    commit: repoCommit(repo, commit, view),
    branches: branches.map((b) => ({ name: b.name, commit: { sha: b.sha, url: `${api}/commits/${b.sha}` }, protected: b.protected })),
    created_at: status.createdAt,
    updated_at: status.updatedAt,
    ...envelope(repo, inst, status.creator, view),
  };
};

export interface PushedCommit {
  commit: CommitObject;
  added: string[];
  removed: string[];
  modified: string[];
}

const pushCommit = (repo: FakeRepo, pushed: PushedCommit, view: View) => ({
  id: pushed.commit.sha,
  tree_id: pushed.commit.tree,
  distinct: true,
  message: pushed.commit.message,
  timestamp: pushed.commit.committer.date,
  url: `${repoHtmlUrl(repo, view)}/commit/${pushed.commit.sha}`,
  author: { name: pushed.commit.author.name, email: pushed.commit.author.email },
  committer: { name: pushed.commit.committer.name, email: pushed.commit.committer.email },
  added: pushed.added,
  removed: pushed.removed,
  modified: pushed.modified,
});

export interface PushFacts {
  ref: string;
  before: string;
  after: string;
  forced: boolean;
  commits: PushedCommit[];
  head: PushedCommit | null;
}

export const pushPayload = (repo: FakeRepo, push: PushFacts, inst: FakeInstallation, pusher: FakeUser, view: View) => {
  const base = example('push', null);
  const zero = '0'.repeat(40);
  const repoView = repository(repo, view);
  const created = Math.floor(Date.parse(repo.createdAt) / 1000);
  return {
    ...base,
    ...envelope(repo, inst, pusher, view),
    ref: push.ref,
    before: push.before,
    after: push.after,
    created: push.before === zero,
    deleted: push.after === zero,
    forced: push.forced,
    base_ref: null,
    compare: `${repoHtmlUrl(repo, view)}/compare/${push.before.slice(0, 12)}...${push.after.slice(0, 12)}`,
    commits: push.commits.map((c) => pushCommit(repo, c, view)),
    head_commit: push.head === null ? null : pushCommit(repo, push.head, view),
    // Push events describe the repository in an older shape: the owner has a name and e-mail, times are epoch seconds.
    repository: {
      ...object(base.repository),
      ...repoView,
      owner: { ...repoView.owner, name: repo.owner.login, email: repo.owner.email },
      created_at: created,
      pushed_at: Math.floor(view.state.now().getTime() / 1000),
      stargazers: 0,
      master_branch: repo.defaultBranch,
      custom_properties: {},
    },
    pusher: { name: pusher.login, email: pusher.email },
  };
};

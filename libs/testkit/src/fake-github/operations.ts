/**
 * The REST operations the fake GitHub implements, named by their operationId in GitHub's REST
 * description. This list is the single source for the fake's router, its permission checks and
 * scripts/extract-github-schemas.ts, which copies exactly these operations' schemas into
 * schemas/rest.json (docs/github.md, "Testing without GitHub").
 */

/** What an installation token needs for an operation; `jwt` operations take the App's JWT instead. */
export type Permission =
  { kind: 'jwt' } | { kind: 'installation' } | { kind: 'repo'; scopes: readonly RepoScope[]; level: 'read' | 'write' };

export type RepoScope = 'metadata' | 'contents' | 'pull_requests' | 'checks' | 'statuses' | 'issues' | 'administration' | 'actions';

export interface RestOperation {
  id: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path template exactly as GitHub's description writes it. */
  path: string;
  permission: Permission;
}

const read = (...scopes: RepoScope[]): Permission => ({ kind: 'repo', scopes, level: 'read' });
const write = (...scopes: RepoScope[]): Permission => ({ kind: 'repo', scopes, level: 'write' });
const jwt: Permission = { kind: 'jwt' };

export const REST_OPERATIONS = [
  { id: 'apps/get-authenticated', method: 'GET', path: '/app', permission: jwt },
  { id: 'apps/list-installations', method: 'GET', path: '/app/installations', permission: jwt },
  { id: 'apps/get-installation', method: 'GET', path: '/app/installations/{installation_id}', permission: jwt },
  {
    id: 'apps/create-installation-access-token',
    method: 'POST',
    path: '/app/installations/{installation_id}/access_tokens',
    permission: jwt,
  },
  { id: 'apps/get-repo-installation', method: 'GET', path: '/repos/{owner}/{repo}/installation', permission: jwt },
  {
    id: 'apps/list-repos-accessible-to-installation',
    method: 'GET',
    path: '/installation/repositories',
    permission: { kind: 'installation' },
  },
  { id: 'repos/get', method: 'GET', path: '/repos/{owner}/{repo}', permission: read('metadata') },
  { id: 'repos/get-branch', method: 'GET', path: '/repos/{owner}/{repo}/branches/{branch}', permission: read('contents') },
  { id: 'pulls/list', method: 'GET', path: '/repos/{owner}/{repo}/pulls', permission: read('pull_requests') },
  { id: 'pulls/get', method: 'GET', path: '/repos/{owner}/{repo}/pulls/{pull_number}', permission: read('pull_requests') },
  { id: 'pulls/update', method: 'PATCH', path: '/repos/{owner}/{repo}/pulls/{pull_number}', permission: write('pull_requests') },
  { id: 'git/get-ref', method: 'GET', path: '/repos/{owner}/{repo}/git/ref/{ref}', permission: read('contents') },
  { id: 'git/list-matching-refs', method: 'GET', path: '/repos/{owner}/{repo}/git/matching-refs/{ref}', permission: read('contents') },
  { id: 'git/create-ref', method: 'POST', path: '/repos/{owner}/{repo}/git/refs', permission: write('contents') },
  { id: 'git/update-ref', method: 'PATCH', path: '/repos/{owner}/{repo}/git/refs/{ref}', permission: write('contents') },
  { id: 'git/delete-ref', method: 'DELETE', path: '/repos/{owner}/{repo}/git/refs/{ref}', permission: write('contents') },
  { id: 'git/get-commit', method: 'GET', path: '/repos/{owner}/{repo}/git/commits/{commit_sha}', permission: read('contents') },
  { id: 'git/create-commit', method: 'POST', path: '/repos/{owner}/{repo}/git/commits', permission: write('contents') },
  { id: 'git/get-tree', method: 'GET', path: '/repos/{owner}/{repo}/git/trees/{tree_sha}', permission: read('contents') },
  { id: 'repos/merge', method: 'POST', path: '/repos/{owner}/{repo}/merges', permission: write('contents') },
  {
    id: 'repos/compare-commits-with-basehead',
    method: 'GET',
    path: '/repos/{owner}/{repo}/compare/{basehead}',
    permission: read('contents'),
  },
  { id: 'repos/get-content', method: 'GET', path: '/repos/{owner}/{repo}/contents/{path}', permission: read('contents') },
  { id: 'repos/create-commit-status', method: 'POST', path: '/repos/{owner}/{repo}/statuses/{sha}', permission: write('statuses') },
  {
    id: 'repos/get-combined-status-for-ref',
    method: 'GET',
    path: '/repos/{owner}/{repo}/commits/{ref}/status',
    permission: read('statuses'),
  },
  {
    id: 'repos/list-commit-statuses-for-ref',
    method: 'GET',
    path: '/repos/{owner}/{repo}/commits/{ref}/statuses',
    permission: read('statuses'),
  },
  { id: 'checks/create', method: 'POST', path: '/repos/{owner}/{repo}/check-runs', permission: write('checks') },
  { id: 'checks/get', method: 'GET', path: '/repos/{owner}/{repo}/check-runs/{check_run_id}', permission: read('checks') },
  { id: 'checks/update', method: 'PATCH', path: '/repos/{owner}/{repo}/check-runs/{check_run_id}', permission: write('checks') },
  { id: 'checks/list-for-ref', method: 'GET', path: '/repos/{owner}/{repo}/commits/{ref}/check-runs', permission: read('checks') },
  { id: 'checks/list-suites-for-ref', method: 'GET', path: '/repos/{owner}/{repo}/commits/{ref}/check-suites', permission: read('checks') },
  {
    id: 'checks/rerequest-suite',
    method: 'POST',
    path: '/repos/{owner}/{repo}/check-suites/{check_suite_id}/rerequest',
    permission: write('checks'),
  },
  { id: 'actions/get-workflow-run', method: 'GET', path: '/repos/{owner}/{repo}/actions/runs/{run_id}', permission: read('actions') },
  { id: 'repos/get-branch-rules', method: 'GET', path: '/repos/{owner}/{repo}/rules/branches/{branch}', permission: read('metadata') },
  {
    id: 'repos/get-branch-protection',
    method: 'GET',
    path: '/repos/{owner}/{repo}/branches/{branch}/protection',
    permission: read('administration'),
  },
  {
    id: 'repos/get-status-checks-protection',
    method: 'GET',
    path: '/repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks',
    permission: read('administration'),
  },
  {
    id: 'repos/get-collaborator-permission-level',
    method: 'GET',
    path: '/repos/{owner}/{repo}/collaborators/{username}/permission',
    permission: read('metadata'),
  },
  {
    id: 'issues/create-comment',
    method: 'POST',
    path: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    permission: write('issues', 'pull_requests'),
  },
  {
    id: 'issues/list-comments',
    method: 'GET',
    path: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    permission: read('issues', 'pull_requests'),
  },
  {
    id: 'issues/update-comment',
    method: 'PATCH',
    path: '/repos/{owner}/{repo}/issues/comments/{comment_id}',
    permission: write('issues', 'pull_requests'),
  },
  {
    id: 'reactions/create-for-issue-comment',
    method: 'POST',
    path: '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
    permission: write('issues', 'pull_requests'),
  },
  {
    id: 'reactions/list-for-issue-comment',
    method: 'GET',
    path: '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
    permission: read('issues', 'pull_requests'),
  },
] as const satisfies readonly RestOperation[];

export type OperationId = (typeof REST_OPERATIONS)[number]['id'];

/** Webhook events and the actions the fake sends (null: the event has no action). */
export const WEBHOOK_EVENTS = {
  installation: ['created', 'deleted', 'suspend', 'unsuspend'],
  installation_repositories: ['added', 'removed'],
  pull_request: ['opened', 'synchronize', 'edited', 'closed', 'reopened', 'ready_for_review', 'converted_to_draft', 'labeled', 'unlabeled'],
  issue_comment: ['created', 'edited', 'deleted'],
  check_run: ['created', 'completed', 'rerequested', 'requested_action'],
  check_suite: ['completed', 'requested', 'rerequested'],
  status: [null],
  push: [null],
} as const;

export type WebhookEventName = keyof typeof WEBHOOK_EVENTS;

/** The key of an event's schema in GitHub's webhook description: `pull-request-opened`, `status`. */
export const webhookSchemaKey = (event: string, action: string | null): string =>
  [event.replace(/_/g, '-'), action?.replace(/_/g, '-')].filter((part) => part !== undefined).join('-');

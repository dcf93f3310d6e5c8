import { digestWebhook, isIgnored } from './webhook-digest';

const opts = { host: 'github.com', appId: 7 };
const repository = { name: 'widgets', full_name: 'acme/widgets', owner: { login: 'acme' } };
const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
const A = 'a'.repeat(40);
const pull = (over: Record<string, unknown> = {}) => ({
  number: 4,
  state: 'open',
  merged: false,
  head: { sha: A, ref: 'feature' },
  base: { ref: 'main' },
  ...over,
});

describe('digestWebhook', () => {
  it('when a PR is pushed to, then the digest holds its new head and a pull hint', () => {
    const d = digestWebhook('pull_request', { action: 'synchronize', installation: { id: 3 }, repository, pull_request: pull() }, opts);
    expect(d).toEqual({
      event: 'pull_request',
      action: 'synchronize',
      installationId: 3,
      repo,
      pull: { number: 4, headSha: A, baseBranch: 'main', state: 'open' },
      hints: [{ kind: 'pull', repo, number: 4 }],
      commandKey: `github.com:pull_request:4:synchronize:${A}:main::`,
    });
  });

  it('when the same event comes again, then its command key is the same; another comment, action or change of the PR has another', () => {
    const keyOf = (event: string, payload: Record<string, unknown>) =>
      (digestWebhook(event, payload, opts) as { commandKey?: string }).commandKey;
    const issue = { number: 4, pull_request: { url: 'x' } };
    const comment = (id: number) => ({
      action: 'created',
      repository,
      issue,
      comment: { id, body: '/railyard merge', user: { login: 'alice' } },
    });
    expect(keyOf('issue_comment', comment(11))).toBe('github.com:issue_comment:11:created');
    expect(keyOf('issue_comment', comment(11))).toBe(keyOf('issue_comment', comment(11)));
    expect(keyOf('issue_comment', comment(12))).not.toBe(keyOf('issue_comment', comment(11)));
    const closed = (at: string) => ({ action: 'closed', repository, pull_request: pull({ id: 99, state: 'closed', updated_at: at }) });
    expect(keyOf('pull_request', closed('2026-12-01T10:00:00Z'))).toBe(keyOf('pull_request', closed('2026-12-01T10:00:00Z')));
    expect(keyOf('pull_request', closed('2026-12-01T11:00:00Z'))).not.toBe(keyOf('pull_request', closed('2026-12-01T10:00:00Z')));
    const reopened = { action: 'reopened', repository, pull_request: pull({ id: 99, updated_at: '2026-12-01T10:00:00Z' }) };
    expect(keyOf('pull_request', reopened)).not.toBe(keyOf('pull_request', closed('2026-12-01T10:00:00Z')));
    // Hints only ask the engine to re-read GitHub: they carry no command.
    expect(keyOf('status', { repository, sha: A })).toBeUndefined();
  });

  it('when a PR is closed merged, closed, or retargeted, then the digest says so', () => {
    const merged = digestWebhook(
      'pull_request',
      { action: 'closed', repository, pull_request: pull({ state: 'closed', merged: true }) },
      opts,
    );
    expect(merged).toMatchObject({ pull: { state: 'merged' } });
    const closed = digestWebhook('pull_request', { action: 'closed', repository, pull_request: pull({ state: 'closed' }) }, opts);
    expect(closed).toMatchObject({ pull: { state: 'closed' } });
    const retargeted = digestWebhook(
      'pull_request',
      { action: 'edited', repository, pull_request: pull({ base: { ref: 'next' } }), changes: { base: { ref: { from: 'main' } } } },
      opts,
    );
    expect(retargeted).toMatchObject({ pull: { baseBranch: 'next', previousBase: 'main' } });
  });

  it('when a pull_request action is not consumed or the payload is malformed, then it is ignored', () => {
    expect(isIgnored(digestWebhook('pull_request', { action: 'assigned', repository, pull_request: pull() }, opts))).toBe(true);
    expect(
      isIgnored(digestWebhook('pull_request', { action: 'opened', repository, pull_request: pull({ head: { sha: 'x' } }) }, opts)),
    ).toBe(true);
    expect(isIgnored(digestWebhook('pull_request', 'nope', opts))).toBe(true);
    expect(isIgnored(digestWebhook('pull_request', { action: 'opened', pull_request: pull() }, opts))).toBe(true);
  });

  it('when a comment is created on a PR, then the digest holds it; edits, issue comments and the App’s own are ignored', () => {
    const comment = { id: 11, body: '/railyard merge', user: { login: 'alice' } };
    const issue = { number: 4, pull_request: { url: 'x' } };
    expect(digestWebhook('issue_comment', { action: 'created', installation: { id: 3 }, repository, issue, comment }, opts)).toMatchObject({
      comment: { number: 4, commentId: 11, login: 'alice', body: '/railyard merge' },
      hints: [],
    });
    expect(isIgnored(digestWebhook('issue_comment', { action: 'edited', repository, issue, comment }, opts))).toBe(true);
    expect(isIgnored(digestWebhook('issue_comment', { action: 'created', repository, issue: { number: 4 }, comment }, opts))).toBe(true);
    const own = { ...comment, performed_via_github_app: { id: 7 } };
    expect(isIgnored(digestWebhook('issue_comment', { action: 'created', repository, issue, comment: own }, opts))).toBe(true);
  });

  it('when a check run completes on a test branch or a PR, then it hints a status; elsewhere or by the App itself it is ignored', () => {
    const onTest = {
      head_sha: A,
      status: 'completed',
      app: { id: 99 },
      pull_requests: [],
      check_suite: { head_branch: 'railyard-merge/pr-4/r1', head_sha: A },
    };
    expect(digestWebhook('check_run', { action: 'completed', repository, check_run: onTest }, opts)).toMatchObject({
      hints: [{ kind: 'status', repo, sha: A }],
    });
    const onPr = { ...onTest, pull_requests: [{ number: 4 }], check_suite: { head_branch: 'feature', head_sha: A } };
    expect(isIgnored(digestWebhook('check_run', { action: 'completed', repository, check_run: onPr }, opts))).toBe(false);
    const elsewhere = { ...onTest, check_suite: { head_branch: 'docs', head_sha: A } };
    expect(isIgnored(digestWebhook('check_run', { action: 'completed', repository, check_run: elsewhere }, opts))).toBe(true);
    const own = { ...onTest, app: { id: 7 } };
    expect(isIgnored(digestWebhook('check_run', { action: 'completed', repository, check_run: own }, opts))).toBe(true);
    const suite = { head_sha: A, head_branch: 'railyard-merge/pr-4/r1', app: { id: 99 }, pull_requests: [] };
    expect(digestWebhook('check_suite', { action: 'completed', repository, check_suite: suite }, opts)).toMatchObject({
      hints: [{ kind: 'status', sha: A }],
    });
  });

  it('when a status or a push arrives, then it hints a status or a branch; tags and test branches are ignored', () => {
    expect(digestWebhook('status', { sha: A, state: 'success', repository }, opts)).toMatchObject({ hints: [{ kind: 'status', sha: A }] });
    expect(digestWebhook('push', { ref: 'refs/heads/main', repository }, opts)).toMatchObject({
      hints: [{ kind: 'branch', repo, branch: 'main' }],
    });
    expect(isIgnored(digestWebhook('push', { ref: 'refs/tags/v1', repository }, opts))).toBe(true);
    expect(isIgnored(digestWebhook('push', { ref: 'refs/heads/railyard-merge/pr-4/r1', repository }, opts))).toBe(true);
  });

  it('when the App is installed or given repositories, then each repository is resynced', () => {
    const listed = [{ full_name: 'acme/widgets' }, { full_name: 'acme/gears' }, { full_name: 'bad' }];
    expect(digestWebhook('installation', { action: 'created', installation: { id: 3 }, repositories: listed }, opts)).toMatchObject({
      installationId: 3,
      hints: [
        { kind: 'resync', repo },
        { kind: 'resync', repo: { host: 'github.com', owner: 'acme', name: 'gears' } },
      ],
    });
    expect(
      digestWebhook('installation_repositories', { action: 'added', installation: { id: 3 }, repositories_added: [listed[0]] }, opts),
    ).toMatchObject({ hints: [{ kind: 'resync', repo }] });
  });

  it('when the event is not one Railyard consumes, then it is ignored', () => {
    expect(isIgnored(digestWebhook('star', { action: 'created', repository }, opts))).toBe(true);
  });
});

import examples from '../../../testkit/src/fake-github/schemas/webhook-examples.json';
import { hostEventsOf } from './host-events';

// GitHub's own example payloads (@octokit/webhooks-examples, extracted into the fake's schemas).
const example = (key: string): Record<string, unknown> => {
  const found = (examples.examples as Record<string, unknown>)[key];
  if (!found) throw new Error(`no example ${key}`);
  return found as Record<string, unknown>;
};

const repoOf = (payload: Record<string, unknown>) => {
  const r = payload.repository as { name: string; owner: { login: string } };
  return { host: 'github.com', owner: r.owner.login, name: r.name };
};

describe('webhook deliveries as host events', () => {
  it('when a PR is opened, pushed, closed or marked ready, then the PR is named for a re-read', () => {
    for (const key of ['pull-request-opened', 'pull-request-synchronize', 'pull-request-closed', 'pull-request-ready-for-review']) {
      const p = example(key);
      expect(hostEventsOf('github.com', 'pull_request', p)).toEqual([
        {
          kind: 'pull',
          repo: repoOf(p),
          number: (p.pull_request as { number: number }).number,
          ...(key === 'pull-request-closed' ? { closed: true } : {}),
        },
      ]);
    }
  });

  it('when a branch is pushed, then the branch is named; a tag push names nothing', () => {
    const p = example('push');
    const ref = p.ref as string;
    expect(hostEventsOf('github.com', 'push', p)).toEqual(
      ref.startsWith('refs/heads/') ? [{ kind: 'branch', repo: repoOf(p), branch: ref.slice('refs/heads/'.length) }] : [],
    );
    expect(hostEventsOf('github.com', 'push', { ...p, ref: 'refs/tags/v1' })).toEqual([]);
  });

  it('when a status or a check run changes, then the commit is named with the kind of report to re-read', () => {
    const status = example('status');
    expect(hostEventsOf('github.com', 'status', status)).toEqual([
      { kind: 'status', repo: repoOf(status), sha: status.sha, report: 'status' },
    ]);
    const run = example('check-run-completed');
    expect(hostEventsOf('github.com', 'check_run', run)).toEqual([
      { kind: 'status', repo: repoOf(run), sha: (run.check_run as { head_sha: string }).head_sha, report: 'check' },
    ]);
    // A run queued or in progress is still pending: no re-read until it completes.
    expect(hostEventsOf('github.com', 'check_run', example('check-run-created'))).toEqual([]);
    expect(hostEventsOf('github.com', 'check_run', example('check-run-requested-action'))).toEqual([]);
    // A suite's runs are announced one by one: only its completion is a hint too.
    expect(hostEventsOf('github.com', 'check_suite', example('check-suite-requested'))).toEqual([]);
    expect(hostEventsOf('github.com', 'check_suite', example('check-suite-completed'))).toHaveLength(1);
  });

  it('when the App gains repositories, then each is resynced; comments and unknown events name nothing', () => {
    const added = example('installation-repositories-added');
    const names = (added.repositories_added as { full_name: string }[]).map((r) => r.full_name);
    expect(hostEventsOf('github.com', 'installation_repositories', added).map((e) => `${e.repo.owner}/${e.repo.name}`)).toEqual(names);
    expect(hostEventsOf('github.com', 'issue_comment', example('issue-comment-created'))).toEqual([]);
    expect(hostEventsOf('github.com', 'merge_group', {})).toEqual([]);
    expect(hostEventsOf('github.com', 'push', 'not an object')).toEqual([]);
  });
});

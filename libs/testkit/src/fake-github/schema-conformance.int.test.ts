import { FakeGithub } from './fake-github';
import { FakeGithubClient } from './http-client';
import { REST_OPERATIONS, WEBHOOK_EVENTS, webhookSchemaKey } from './operations';
import { FULL_PERMISSIONS, startReceiver } from './test-support';

// Every operation the fake implements and every webhook it sends, exercised once on the success path;
// the fake validates each answer and payload against GitHub's published schemas as it sends them.

const REPO = 'acme/widgets';

// Compiling GitHub's schemas for every operation takes seconds on a loaded machine.
jest.setTimeout(60_000);

describe('fake GitHub conformance to the published schemas', () => {
  let fake: FakeGithub;
  let client: FakeGithubClient;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    fake = await FakeGithub.start({
      webhookUrl: receiver.url,
      behaviour: { mergedFlagDelayMs: 0 },
    });
    client = new FakeGithubClient(fake);
  });

  afterAll(async () => {
    await fake.stop();
    await receiver.close();
  });

  test('when every REST operation and webhook is exercised, then every answer and payload matches its schema', async () => {
    await fake.createRepo({
      repo: REPO,
      files: { 'README.md': '# widgets\n', '.railyard.yml': 'merge:\n  required_statuses: [test]\n', 'src/a.ts': 'a\n' },
    });
    await fake.createRepo({ repo: 'acme/other' });
    const inst = fake.install({
      account: 'acme',
      repos: [REPO],
      permissions: FULL_PERMISSIONS,
    });
    fake.addReposToInstallation(inst.id, ['acme/other']);
    fake.removeReposFromInstallation(inst.id, ['acme/other']);
    fake.protectBranch(REPO, 'main', { contexts: ['test'], strict: false });
    fake.addRuleset(REPO, { branches: ['main'], requiredChecks: [{ context: 'test' }] });
    fake.allowBypass(REPO);
    fake.setCollaborator(REPO, 'alice', 'write');
    await fake.forkRepo(REPO, 'mallory');
    await fake.commit({ repo: 'mallory/widgets', branch: 'patch', files: { 'b.txt': 'b\n' } });
    await fake.openPullRequest({ repo: REPO, head: 'patch', headRepo: 'mallory/widgets', title: 'From a fork' });
    const forkHead = await fake.commit({ repo: 'mallory/widgets', branch: 'patch', files: { 'b.txt': 'b2\n' } });
    const head = await fake.commit({ repo: REPO, branch: 'feature', files: { 'c.txt': 'c\n' }, user: 'alice' });
    const pr = await fake.openPullRequest({ repo: REPO, head: 'feature', user: 'alice' });
    const n = pr.number;
    await fake.editPullRequest(REPO, n, { title: 'Add c' });
    await fake.label(REPO, n, 'queue');
    await fake.label(REPO, n, 'queue', false);
    await fake.setDraft(REPO, n, true);
    await fake.setDraft(REPO, n, false);
    await fake.closePullRequest(REPO, n);
    await fake.reopenPullRequest(REPO, n);
    const comment = fake.comment(REPO, n, 'alice', '/railyard merge');
    fake.editComment(comment.id, '/railyard merge --priority high');

    // A CI's check run: its suite is what Railyard re-requests for a flake re-run.
    await fake.ci.reportCheckRun({ repo: REPO, sha: head, name: 'test', conclusion: 'failure' });
    const ciSuite = fake.checkSuites(REPO, head).find((s) => s.appId !== fake.appId) as { id: number };
    // Workflow runs of a PR of the repository and of the PR from the fork.
    const ownRun = fake.ci.startWorkflowRun({ repo: REPO, pr: n });
    const forkRun = fake.ci.startWorkflowRun({ repo: REPO, pr: 1 });
    const jwt = `bearer ${client.appJwt()}`;
    const id = inst.id;
    const r = `/repos/${REPO}`;
    const calls: [string, string, { auth: string | number; body?: unknown }][] = [
      ['GET', '/app', { auth: jwt }],
      ['GET', '/app/installations', { auth: jwt }],
      ['GET', `/app/installations/${id}`, { auth: jwt }],
      ['GET', `${r}/installation`, { auth: jwt }],
      ['GET', '/installation/repositories', { auth: id }],
      ['GET', r, { auth: id }],
      ['GET', `${r}/branches/main`, { auth: id }],
      ['GET', `${r}/pulls?state=all`, { auth: id }],
      ['GET', `${r}/pulls/${n}`, { auth: id }],
      ['PATCH', `${r}/pulls/${n}`, { auth: id, body: { body: 'Adds c.' } }],
      ['GET', `${r}/git/ref/heads%2Fmain`, { auth: id }],
      ['GET', `${r}/git/ref/pull%2F1%2Fhead`, { auth: id }],
      ['GET', `${r}/git/matching-refs/heads%2F`, { auth: id }],
      ['POST', `${r}/git/refs`, { auth: id, body: { ref: 'refs/heads/railyard-merge/pr-2/t1', sha: head } }],
      ['POST', `${r}/merges`, { auth: id, body: { base: 'railyard-merge/pr-2/t1', head: forkHead } }],
      ['GET', `${r}/compare/main...feature`, { auth: id }],
      ['GET', `${r}/contents/.railyard.yml?ref=main`, { auth: id }],
      ['GET', `${r}/contents/src?ref=main`, { auth: id }],
      ['GET', `${r}/git/commits/${head}`, { auth: id }],
      ['GET', `${r}/git/trees/${head}?recursive=1`, { auth: id }],
      ['POST', `${r}/statuses/${head}`, { auth: id, body: { state: 'success', context: 'test', target_url: 'https://ci.example.test/1' } }],
      ['GET', `${r}/commits/${head}/status`, { auth: id }],
      ['GET', `${r}/commits/${head}/statuses`, { auth: id }],
      [
        'POST',
        `${r}/check-runs`,
        {
          auth: id,
          body: { name: 'Railyard (main)', head_sha: head, status: 'in_progress', output: { title: 'Queued', summary: 'Position 1' } },
        },
      ],
      ['GET', `${r}/commits/${head}/check-runs`, { auth: id }],
      ['GET', `${r}/commits/${head}/check-suites`, { auth: id }],
      ['POST', `${r}/check-suites/${ciSuite.id}/rerequest`, { auth: id }],
      ['GET', `${r}/actions/runs/${ownRun.id}`, { auth: id }],
      ['GET', `${r}/actions/runs/${forkRun.id}`, { auth: id }],
      ['GET', `${r}/rules/branches/main`, { auth: id }],
      ['GET', `${r}/branches/main/protection`, { auth: id }],
      ['GET', `${r}/branches/main/protection/required_status_checks`, { auth: id }],
      ['GET', `${r}/collaborators/alice/permission`, { auth: id }],
      ['POST', `${r}/issues/${n}/comments`, { auth: id, body: { body: 'Queued at position 1.' } }],
      ['GET', `${r}/issues/${n}/comments`, { auth: id }],
      ['POST', `${r}/issues/comments/${comment.id}/reactions`, { auth: id, body: { content: 'eyes' } }],
      ['GET', `${r}/issues/comments/${comment.id}/reactions`, { auth: id }],
    ];
    for (const [method, path, opts] of calls) {
      const { status, body } = await client.call(method, path, opts);
      expect({ method, path, status: status < 300 ? 'ok' : body }).toEqual({ method, path, status: 'ok' });
    }
    const run = fake.checkRuns(REPO, head).find((c) => c.name === 'Railyard (main)');
    const botComment = fake.comments(REPO, n).find((c) => c.viaAppId === fake.appId);
    const sequel: [string, string, { auth: number; body?: unknown }][] = [
      ['GET', `${r}/check-runs/${run?.id}`, { auth: id }],
      [
        'PATCH',
        `${r}/check-runs/${run?.id}`,
        { auth: id, body: { conclusion: 'success', output: { title: 'Merged', summary: 'Landed.' } } },
      ],
      ['PATCH', `${r}/issues/comments/${botComment?.id}`, { auth: id, body: { body: 'Merged.' } }],
      ['POST', `${r}/git/commits`, { auth: id, body: { message: 'squash', tree: await fake.treeOf(REPO, head), parents: [head] } }],
      ['PATCH', `${r}/git/refs/heads%2Fmain`, { auth: id, body: { sha: head, force: false } }],
      ['DELETE', `${r}/git/refs/heads%2Frailyard-merge%2Fpr-2%2Ft1`, { auth: id }],
    ];
    for (const [method, path, opts] of sequel) {
      const { status, body } = await client.call(method, path, opts);
      expect({ method, path, status: status < 300 ? 'ok' : body }).toEqual({ method, path, status: 'ok' });
    }
    await fake.rerequestCheckRun(run?.id ?? 0, 'alice');
    await fake.requestCheckRunAction(run?.id ?? 0, 'cancel', 'alice');
    const suite = fake.checkSuites(REPO, head).find((s) => s.appId === fake.appId);
    await fake.rerequestCheckSuite(suite?.id ?? 0, 'alice');
    await fake.ci.reportStatus({ repo: REPO, sha: head, context: 'lint', state: 'pending' });
    fake.deleteComment(comment.id);
    fake.suspend(id);
    fake.suspend(id, false);
    fake.uninstall(id);
    await fake.webhooks.settled();

    const exercised = new Set(fake.requests.records.filter((rec) => rec.status < 300).map((rec) => rec.operation));
    expect(REST_OPERATIONS.map((op) => op.id).filter((op) => !exercised.has(op))).toEqual([]);
    const sent = new Set(fake.webhooks.deliveries.map((d) => webhookSchemaKey(d.event, d.action)));
    const expected = Object.entries(WEBHOOK_EVENTS).flatMap(([event, actions]) => actions.map((action) => webhookSchemaKey(event, action)));
    expect(expected.filter((key) => !sent.has(key))).toEqual([]);
    expect(fake.webhooks.deliveries.every((d) => d.attempts.every((a) => a.status === 204))).toBe(true);
    expect(fake.violations).toEqual([]);
  });
});

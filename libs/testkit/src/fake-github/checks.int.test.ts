import { FULL_PERMISSIONS, REPO, startReceiver, useFakeGithub } from './test-support';

// Statuses, check runs, branch rules, permissions and the PR conversation.

jest.setTimeout(30_000);

describe('fake GitHub checks and conversation', () => {
  const ctx = useFakeGithub({}, { permissions: FULL_PERMISSIONS });
  const call = (method: string, path: string, body?: unknown) =>
    ctx.client.call(method, `/repos/${REPO}${path}`, { auth: ctx.inst.id, body });
  const main = async () => (await ctx.fake.branchSha(REPO, 'main')) as string;

  test('when statuses are posted, then the combined state follows the newest status of each context', async () => {
    const sha = await main();
    const combined = async () => ((await call('GET', `/commits/${sha}/status`)).body as { state: string; total_count: number }).state;
    expect(await combined()).toBe('pending');
    await call('POST', `/statuses/${sha}`, { state: 'failure', context: 'test' });
    await call('POST', `/statuses/${sha}`, { state: 'success', context: 'lint' });
    expect(await combined()).toBe('failure');
    await call('POST', `/statuses/${sha}`, { state: 'success', context: 'test' });
    expect(await combined()).toBe('success');
    const all = (await call('GET', `/commits/main/statuses`)).body as { context: string; state: string }[];
    expect(all.map((s) => `${s.context}:${s.state}`)).toEqual(['test:success', 'lint:success', 'test:failure']);
    expect((await call('POST', `/statuses/${'f'.repeat(40)}`, { state: 'success', context: 'x' })).status).toBe(422);
  });

  test('when a check run completes, then the run and its suite report completion, and only its App may change it', async () => {
    const receiver = await startReceiver();
    ctx.fake.setWebhookUrl(receiver.url);
    try {
      const sha = await main();
      const created = await call('POST', '/check-runs', {
        name: 'Railyard (main)',
        head_sha: sha,
        status: 'queued',
        output: { title: 'Queued', summary: 'Position 2' },
      });
      const id = (created.body as { id: number }).id;
      await call('PATCH', `/check-runs/${id}`, { status: 'in_progress' });
      const done = await call('PATCH', `/check-runs/${id}`, { conclusion: 'success', output: { title: 'Merged', summary: 'Landed.' } });
      expect(done.body).toMatchObject({ status: 'completed', conclusion: 'success', output: { title: 'Merged' } });
      const ci = await ctx.fake.ci.reportCheckRun({ repo: REPO, sha, name: 'test' });
      expect(await call('PATCH', `/check-runs/${ci.id}`, { conclusion: 'failure' })).toMatchObject({ status: 403 });
      await ctx.fake.webhooks.settled();
      const events = receiver.received.map((r) => {
        const p = JSON.parse(r.body);
        return `${r.headers['x-github-event']}.${p.action}:${p.check_run?.name ?? p.check_suite?.app?.slug}`;
      });
      expect(events).toEqual(
        expect.arrayContaining([
          'check_run.created:Railyard (main)',
          'check_run.completed:Railyard (main)',
          'check_suite.completed:railyard',
          'check_run.created:test',
        ]),
      );
    } finally {
      await receiver.close();
    }
  });

  test('when check runs are listed for a ref, then the newest run of each name comes back unless all are asked for', async () => {
    const sha = await main();
    await ctx.fake.ci.reportCheckRun({ repo: REPO, sha, name: 'test', conclusion: 'failure' });
    await ctx.fake.ci.reportCheckRun({ repo: REPO, sha, name: 'test', conclusion: 'success' });
    const list = async (query: string) =>
      ((await call('GET', `/commits/main/check-runs${query}`)).body as { check_runs: { conclusion: string }[] }).check_runs;
    expect((await list('')).map((r) => r.conclusion)).toEqual(['success']);
    expect((await list('?filter=all')).map((r) => r.conclusion)).toEqual(['success', 'failure']);
    expect(await list('?check_name=lint')).toEqual([]);
    const suites = (await call('GET', '/commits/main/check-suites')).body as {
      check_suites: { conclusion: string; app: { id: number } }[];
    };
    expect(suites.check_suites.find((s) => s.app.id === ctx.fake.ciAppId)?.conclusion).toBe('success');
  });

  test('when a branch has rulesets and classic protection, then each endpoint reports its own required checks', async () => {
    ctx.fake.protectBranch(REPO, 'main', { contexts: ['build'], strict: true });
    ctx.fake.addRuleset(REPO, {
      branches: ['main'],
      requiredChecks: [{ context: 'test', integrationId: ctx.fake.ciAppId }],
      strict: false,
    });
    expect((await call('GET', '/rules/branches/main')).body).toEqual([
      expect.objectContaining({
        type: 'required_status_checks',
        parameters: {
          strict_required_status_checks_policy: false,
          required_status_checks: [{ context: 'test', integration_id: ctx.fake.ciAppId }],
        },
      }),
    ]);
    expect((await call('GET', '/branches/main/protection/required_status_checks')).body).toMatchObject({
      strict: true,
      contexts: ['build'],
    });
    expect((await call('GET', '/rules/branches/other')).body).toEqual([]);
    expect(await call('GET', '/branches/nope/protection')).toMatchObject({ status: 404, body: { message: 'Branch not found' } });
  });

  test('when a user’s permission is asked, then owners are admins, collaborators have their role and others only read', async () => {
    ctx.fake.setCollaborator(REPO, 'alice', 'write');
    ctx.fake.setCollaborator(REPO, 'bob', 'triage');
    await ctx.fake.commit({ repo: REPO, branch: 'x', files: { 'x.txt': 'x' }, user: 'mallory' });
    const permission = async (login: string) =>
      (await call('GET', `/collaborators/${login}/permission`)).body as { permission: string; role_name: string };
    expect(await permission('acme')).toMatchObject({ permission: 'admin' });
    expect(await permission('alice')).toMatchObject({ permission: 'write', role_name: 'write' });
    expect(await permission('bob')).toMatchObject({ permission: 'read', role_name: 'triage' });
    expect(await permission('mallory')).toMatchObject({ permission: 'read' });
    expect((await call('GET', '/collaborators/nobody-at-all/permission')).status).toBe(404);
  });

  test('when the App comments, edits its comment and reacts, then each is answered as on GitHub', async () => {
    await ctx.fake.commit({ repo: REPO, branch: 'feature', files: { 'f.txt': 'f' } });
    const { number } = await ctx.fake.openPullRequest({ repo: REPO, head: 'feature', user: 'alice' });
    const command = ctx.fake.comment(REPO, number, 'alice', '/railyard merge');
    const first = await call('POST', `/issues/comments/${command.id}/reactions`, { content: 'eyes' });
    const again = await call('POST', `/issues/comments/${command.id}/reactions`, { content: 'eyes' });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect((again.body as { id: number }).id).toBe((first.body as { id: number }).id);
    const sticky = await call('POST', `/issues/${number}/comments`, { body: 'Queued.' });
    const id = (sticky.body as { id: number }).id;
    expect((await call('PATCH', `/issues/comments/${id}`, { body: 'Testing.' })).body).toMatchObject({
      body: 'Testing.',
      performed_via_github_app: { id: ctx.fake.appId },
    });
    const listed = (await call('GET', `/issues/${number}/comments`)).body as { body: string; reactions: { eyes: number } }[];
    expect(listed.map((c) => c.body)).toEqual(['/railyard merge', 'Testing.']);
    expect(listed[0]?.reactions.eyes).toBe(1);
    expect((await call('POST', '/issues/999/comments', { body: 'x' })).status).toBe(404);
  });
});

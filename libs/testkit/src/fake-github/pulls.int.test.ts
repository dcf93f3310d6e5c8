import { eventually, REPO, startReceiver, useFakeGithub } from './test-support';

// Pull requests as GitHub computes them: lazy mergeability, drafts, forks, and the merged flag that
// turns true some time after the base comes to contain the head.

jest.setTimeout(30_000);

type PullView = {
  merged: boolean;
  mergeable: boolean | null;
  mergeable_state: string;
  state: string;
  head: { sha: string; repo: { full_name: string } };
};

describe('fake GitHub pull requests', () => {
  const ctx = useFakeGithub({ behaviour: { mergedFlagDelayMs: 300 } });
  const get = async (n: number) => (await ctx.client.call('GET', `/repos/${REPO}/pulls/${n}`, { auth: ctx.inst.id })).body as PullView;

  const openFeature = async (files: Record<string, string> = { 'feature.txt': 'x\n' }) => {
    await ctx.fake.commit({ repo: REPO, branch: 'feature', files });
    return (await ctx.fake.openPullRequest({ repo: REPO, head: 'feature', user: 'alice' })).number;
  };

  test('when a pull request is read again with the etag of an answer that still holds, then it is 304 without a body and costs no budget; after a push, 200', async () => {
    const n = await openFeature();
    await eventually(async () => (await get(n)).mergeable !== null, 'mergeability is computed');
    const path = `/repos/${REPO}/pulls/${n}`;
    const first = await ctx.client.call('GET', path, { auth: ctx.inst.id });
    const etag = first.headers.get('etag') as string;
    const again = await ctx.client.call('GET', path, { auth: ctx.inst.id, headers: { 'if-none-match': etag } });
    expect({ status: again.status, body: again.body }).toEqual({ status: 304, body: undefined });
    expect(again.headers.get('x-ratelimit-remaining')).toBe(first.headers.get('x-ratelimit-remaining'));
    await ctx.fake.commit({ repo: REPO, branch: 'feature', files: { 'feature.txt': 'y\n' } });
    expect((await ctx.client.call('GET', path, { auth: ctx.inst.id, headers: { 'if-none-match': etag } })).status).toBe(200);
  });

  test('when a pull request is read for the first time, then mergeability is still being computed, and a later read has it', async () => {
    const n = await openFeature();
    expect(await get(n)).toMatchObject({ mergeable: null, mergeable_state: 'unknown' });
    await eventually(async () => (await get(n)).mergeable !== null, 'mergeability is computed');
    expect(await get(n)).toMatchObject({ mergeable: true, mergeable_state: 'clean' });
  });

  test('when the head conflicts with the base, then the pull request is dirty', async () => {
    const n = await openFeature({ 'config.yml': 'version: 2\n' });
    await ctx.fake.commit({ repo: REPO, branch: 'main', files: { 'config.yml': 'version: 3\n' } });
    await get(n);
    await eventually(async () => (await get(n)).mergeable !== null, 'mergeability is computed');
    expect(await get(n)).toMatchObject({ mergeable: false, mergeable_state: 'dirty' });
  });

  test('when a required check has not passed, then the pull request is blocked, and once it passed it is clean', async () => {
    ctx.fake.protectBranch(REPO, 'main', { contexts: ['test'], strict: false });
    const n = await openFeature();
    await get(n);
    await eventually(async () => (await get(n)).mergeable !== null, 'mergeability is computed');
    expect((await get(n)).mergeable_state).toBe('blocked');
    await ctx.fake.ci.reportCheckRun({ repo: REPO, sha: ctx.fake.pullRequest(REPO, n).headSha, name: 'test', conclusion: 'success' });
    expect((await get(n)).mergeable_state).toBe('clean');
  });

  test('when a pull request is a draft, then it reads as a draft until it is marked ready', async () => {
    await ctx.fake.commit({ repo: REPO, branch: 'feature', files: { 'f.txt': 'f\n' } });
    const { number: n } = await ctx.fake.openPullRequest({ repo: REPO, head: 'feature', draft: true });
    await get(n);
    await eventually(async () => (await get(n)).mergeable !== null, 'mergeability is computed');
    expect(await get(n)).toMatchObject({ draft: true, mergeable_state: 'draft' });
    await ctx.fake.setDraft(REPO, n, false);
    expect((await get(n)).mergeable_state).not.toBe('draft');
  });

  test('when a pull request comes from a fork, then its head is readable in the base repository as refs/pull/N/head and follows pushes', async () => {
    await ctx.fake.forkRepo(REPO, 'mallory');
    await ctx.fake.commit({ repo: 'mallory/widgets', branch: 'patch', files: { 'p.txt': '1\n' } });
    const { number: n } = await ctx.fake.openPullRequest({ repo: REPO, head: 'patch', headRepo: 'mallory/widgets' });
    const second = await ctx.fake.commit({ repo: 'mallory/widgets', branch: 'patch', files: { 'p.txt': '2\n' } });
    expect((await get(n)).head).toMatchObject({ sha: second, repo: { full_name: 'mallory/widgets' } });
    const ref = await ctx.client.call('GET', `/repos/${REPO}/git/ref/${encodeURIComponent(`pull/${n}/head`)}`, { auth: ctx.inst.id });
    expect(ref.body).toMatchObject({ ref: `refs/pull/${n}/head`, object: { sha: second } });
    // The fork's commit is usable in the base repository: a test branch can be built from it.
    const created = await ctx.client.call('POST', `/repos/${REPO}/git/refs`, {
      auth: ctx.inst.id,
      body: { ref: 'refs/heads/railyard-merge/pr-1/a', sha: second },
    });
    expect(created.status).toBe(201);
  });

  test('when the base is fast-forwarded to a commit holding the head, then the pull request reads conflicting and unmerged until GitHub flags it', async () => {
    const receiver = await startReceiver();
    ctx.fake.setWebhookUrl(receiver.url);
    // A long delay, cut short below, so that the window cannot close before it is observed.
    ctx.fake.behaviour.mergedFlagDelayMs = 60_000;
    try {
      const n = await openFeature();
      const head = ctx.fake.pullRequest(REPO, n).headSha;
      const moved = await ctx.client.call('PATCH', `/repos/${REPO}/git/refs/heads%2Fmain`, {
        auth: ctx.inst.id,
        body: { sha: head, force: false },
      });
      expect(moved.status).toBe(200);
      expect(await get(n)).toMatchObject({ merged: false, state: 'open', mergeable: false, mergeable_state: 'dirty' });
      await ctx.fake.flagMergedNow(REPO, n);
      expect(await get(n)).toMatchObject({ merged: true, state: 'closed', merge_commit_sha: head, merged_by: { login: 'railyard[bot]' } });
      await ctx.fake.webhooks.settled();
      const closed = receiver.received.map((r) => JSON.parse(r.body)).find((p) => p.action === 'closed');
      expect(closed.pull_request).toMatchObject({ merged: true, number: n });
    } finally {
      await receiver.close();
    }
  });

  test('when the merged flag is delayed, then it turns true by itself after the delay', async () => {
    const n = await openFeature();
    await ctx.fake.setBranch(REPO, 'main', ctx.fake.pullRequest(REPO, n).headSha);
    await eventually(async () => (await get(n)).merged, 'the PR is flagged merged');
  });

  test('when the tested commit does not hold the head (a squash), then the pull request stays open until the App closes it', async () => {
    const n = await openFeature();
    const squashed = await ctx.fake.commit({
      repo: REPO,
      branch: 'main',
      files: { 'feature.txt': 'x\n' },
      message: 'Squashed feature (#1)',
    });
    expect(squashed).toMatch(/^[0-9a-f]{40}$/);
    expect((await get(n)).state).toBe('open');
    const closed = await ctx.client.call('PATCH', `/repos/${REPO}/pulls/${n}`, { auth: ctx.inst.id, body: { state: 'closed' } });
    expect(closed.body).toMatchObject({ state: 'closed', merged: false });
  });

  test('when pull requests are listed, then the filters and pages work as on GitHub', async () => {
    for (const branch of ['a', 'b', 'c']) {
      await ctx.fake.commit({ repo: REPO, branch, files: { [`${branch}.txt`]: branch } });
      await ctx.fake.openPullRequest({ repo: REPO, head: branch });
    }
    await ctx.fake.closePullRequest(REPO, 1);
    const list = async (query: string) => ctx.client.call('GET', `/repos/${REPO}/pulls?${query}`, { auth: ctx.inst.id });
    expect(((await list('')).body as { number: number }[]).map((p) => p.number)).toEqual([3, 2]);
    expect(((await list('state=all&direction=asc')).body as { number: number }[]).map((p) => p.number)).toEqual([1, 2, 3]);
    expect(((await list('state=all&head=acme:b')).body as { number: number }[]).map((p) => p.number)).toEqual([2]);
    const page = await list('state=all&per_page=2');
    expect((page.body as unknown[]).length).toBe(2);
    expect(page.headers.get('link')).toContain('rel="next"');
  });

  test('when the App edits the title, then an edited event says what it was', async () => {
    const receiver = await startReceiver();
    ctx.fake.setWebhookUrl(receiver.url);
    try {
      const n = await openFeature();
      await ctx.client.call('PATCH', `/repos/${REPO}/pulls/${n}`, { auth: ctx.inst.id, body: { title: 'Better title' } });
      await ctx.fake.webhooks.settled();
      const edited = receiver.received.map((r) => JSON.parse(r.body)).find((p) => p.action === 'edited');
      expect(edited).toMatchObject({ changes: { title: { from: 'feature' } }, pull_request: { title: 'Better title' } });
    } finally {
      await receiver.close();
    }
  });
});

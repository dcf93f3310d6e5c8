import { eventually, REPO, useFakeGithub } from './test-support';

// Injected failures answer as GitHub does under load or in a race; the fake CI reports like a real one.

jest.setTimeout(30_000);

describe('fake GitHub faults and CI', () => {
  const ctx = useFakeGithub();
  const call = (method: string, path: string, body?: unknown) =>
    ctx.client.call(method, `/repos/${REPO}${path}`, { auth: ctx.inst.id, body });

  // The token first, so that faults meant for any operation do not meet the token request.
  beforeEach(async () => {
    await ctx.client.token(ctx.inst.id);
    ctx.fake.requests.reset();
  });

  test('when a secondary rate limit is injected, then the request gets 403 with retry-after and the next one goes through', async () => {
    const handle = ctx.fake.faults.inject({ operation: 'repos/get', kind: 'secondary-rate-limit', retryAfterSeconds: 7 });
    const limited = await call('GET', '');
    expect(limited.status).toBe(403);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect((limited.body as { message: string }).message).toMatch(/secondary rate limit/);
    expect((await call('GET', '')).status).toBe(200);
    expect(handle.hits).toBe(1);
  });

  test('when a limit is injected as 429 or as the primary limit, then the headers say when to come back', async () => {
    ctx.fake.faults.inject({ kind: 'secondary-rate-limit', status: 429, retryAfterSeconds: 3 });
    ctx.fake.faults.inject({ kind: 'primary-rate-limit', resetInSeconds: 30 });
    const secondary = await call('GET', '');
    expect([secondary.status, secondary.headers.get('retry-after')]).toEqual([429, '3']);
    const primary = await call('GET', '');
    expect([primary.status, primary.headers.get('x-ratelimit-remaining')]).toEqual([403, '0']);
    expect(Number(primary.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 29);
  });

  test('when a 5xx hits a ref update before it is applied, then the ref has not moved', async () => {
    const next = await ctx.fake.commit({ repo: REPO, branch: 'topic', files: { 't.txt': 't' } });
    const before = await ctx.fake.branchSha(REPO, 'main');
    ctx.fake.faults.inject({ operation: 'git/update-ref', kind: 'server-error', status: 503 });
    expect((await call('PATCH', '/git/refs/heads%2Fmain', { sha: next })).status).toBe(503);
    expect(await ctx.fake.branchSha(REPO, 'main')).toBe(before);
  });

  test('when a 5xx hits a ref update after it was applied, then the answer fails but the ref has moved, as after a timeout', async () => {
    const next = await ctx.fake.commit({ repo: REPO, branch: 'topic', files: { 't.txt': 't' } });
    ctx.fake.faults.inject({ operation: 'git/update-ref', kind: 'server-error', afterApply: true });
    expect((await call('PATCH', '/git/refs/heads%2Fmain', { sha: next })).status).toBe(502);
    expect(await ctx.fake.branchSha(REPO, 'main')).toBe(next);
  });

  test('when a non-fast-forward is injected for N matching updates, then exactly those are refused', async () => {
    const next = await ctx.fake.commit({ repo: REPO, branch: 'topic', files: { 't.txt': 't' } });
    ctx.fake.faults.inject({ operation: 'git/update-ref', kind: 'not-fast-forward', times: 2, when: (r) => r.params.ref === 'heads/main' });
    await ctx.fake.commit({ repo: REPO, branch: 'other', files: { 'o.txt': 'o' } });
    expect((await call('PATCH', '/git/refs/heads%2Fother', { sha: next, force: true })).status).toBe(200);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push((await call('PATCH', '/git/refs/heads%2Fmain', { sha: next })).status);
    expect(answers).toEqual([422, 422, 200]);
  });

  test('when requests are made, then they are counted per route template', async () => {
    await call('GET', '');
    await call('GET', '/git/ref/heads%2Fmain');
    await call('GET', '/git/ref/heads%2Fnope');
    expect(ctx.fake.requests.byRoute()).toEqual({ 'GET /repos/{owner}/{repo}': 1, 'GET /repos/{owner}/{repo}/git/ref/{ref}': 2 });
    expect(ctx.fake.requests.count((r) => r.status === 404)).toBe(1);
  });

  test('when the CI is configured for test branches, then it reports each check as told: passing, failing, stuck or never', async () => {
    ctx.fake.ci.configure(REPO, {
      branches: (branch) => branch.startsWith('railyard-merge/'),
      checks: [
        { name: 'unit', outcome: 'success' },
        { name: 'lint', via: 'status', outcome: 'failure' },
        { name: 'e2e', outcome: 'stuck' },
        { name: 'flaky', outcome: 'never' },
      ],
    });
    const sha = await ctx.fake.commit({ repo: REPO, branch: 'railyard-merge/pr-1/a', files: { 'x.txt': 'x' } });
    await eventually(() => ctx.fake.checkRuns(REPO, sha).some((r) => r.name === 'unit' && r.status === 'completed'), 'unit completes');
    const combined = async () => (await call('GET', `/commits/${sha}/status`)).body as { statuses: { context: string; state: string }[] };
    await eventually(async () => (await combined()).statuses.some((s) => s.state === 'failure'), 'lint fails');
    const runs = ctx.fake.checkRuns(REPO, sha);
    expect(runs.map((r) => `${r.name}:${r.status}:${r.conclusion}`).sort()).toEqual(['e2e:in_progress:null', 'unit:completed:success']);
    expect((await combined()).statuses.map((s) => `${s.context}:${s.state}`)).toEqual(['lint:failure']);
    const other = await ctx.fake.commit({ repo: REPO, branch: 'feature', files: { 'y.txt': 'y' } });
    expect(ctx.fake.checkRuns(REPO, other)).toEqual([]);
  });
});

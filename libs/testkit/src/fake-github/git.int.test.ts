import { REPO, useFakeGithub } from './test-support';

// Git data, merges, comparisons and contents, answered from the real bare repository.

jest.setTimeout(30_000);

describe('fake GitHub git data', () => {
  const ctx = useFakeGithub();
  const call = (method: string, path: string, body?: unknown) =>
    ctx.client.call(method, `/repos/${REPO}${path}`, { auth: ctx.inst.id, body });
  const main = async () => (await ctx.fake.branchSha(REPO, 'main')) as string;

  test('when refs are created, read, moved and deleted, then each answer is what GitHub gives', async () => {
    const base = await main();
    const next = await ctx.fake.commit({ repo: REPO, branch: 'topic', files: { 't.txt': 't\n' } });
    expect((await call('POST', '/git/refs', { ref: 'refs/heads/test', sha: base })).status).toBe(201);
    expect(await call('POST', '/git/refs', { ref: 'refs/heads/test', sha: base })).toMatchObject({
      status: 422,
      body: { message: 'Reference already exists' },
    });
    expect(await call('POST', '/git/refs', { ref: 'heads/test2', sha: base })).toMatchObject({ status: 422 });
    expect((await call('GET', '/git/ref/heads%2Ftest')).body).toMatchObject({
      ref: 'refs/heads/test',
      object: { sha: base, type: 'commit' },
    });
    expect((await call('GET', '/git/ref/heads%2Fnope')).status).toBe(404);
    expect((await call('PATCH', '/git/refs/heads%2Ftest', { sha: next, force: false })).status).toBe(200);
    expect(await call('PATCH', '/git/refs/heads%2Ftest', { sha: base, force: false })).toMatchObject({
      status: 422,
      body: { message: 'Update is not a fast forward' },
    });
    expect(await ctx.fake.branchSha(REPO, 'test')).toBe(next);
    expect((await call('PATCH', '/git/refs/heads%2Ftest', { sha: base, force: true })).status).toBe(200);
    expect(await call('PATCH', '/git/refs/heads%2Fnope', { sha: base })).toMatchObject({
      status: 422,
      body: { message: 'Reference does not exist' },
    });
    expect(await call('PATCH', '/git/refs/heads%2Ftest', { sha: 'f'.repeat(40) })).toMatchObject({
      status: 422,
      body: { message: 'Object does not exist' },
    });
    expect((await call('DELETE', '/git/refs/heads%2Ftest')).status).toBe(204);
    expect((await call('DELETE', '/git/refs/heads%2Ftest')).status).toBe(422);
    const matching = (await call('GET', '/git/matching-refs/heads%2Ft')).body as { ref: string }[];
    expect(matching.map((r) => r.ref)).toEqual(['refs/heads/topic']);
  });

  test('when a protected branch would move to a commit without its required check, then only a bypass actor may move it', async () => {
    const next = await ctx.fake.commit({ repo: REPO, branch: 'topic', files: { 't.txt': 't\n' } });
    ctx.fake.addRuleset(REPO, { branches: ['main'], requiredChecks: [{ context: 'test' }] });
    expect(await call('PATCH', '/git/refs/heads%2Fmain', { sha: next })).toMatchObject({
      status: 422,
      body: { message: 'Required status check "test" is expected.' },
    });
    await ctx.fake.ci.reportCheckRun({ repo: REPO, sha: next, name: 'test', conclusion: 'success' });
    expect((await call('PATCH', '/git/refs/heads%2Fmain', { sha: next })).status).toBe(200);
    const later = await ctx.fake.commit({ repo: REPO, branch: 'topic', files: { 't.txt': 'u\n' } });
    ctx.fake.allowBypass(REPO);
    expect((await call('PATCH', '/git/refs/heads%2Fmain', { sha: later })).status).toBe(200);
  });

  test('when the merges API merges a head into a branch, then it makes a merge commit, or says there was nothing to merge, or that it conflicts', async () => {
    const base = await main();
    const head = await ctx.fake.commit({ repo: REPO, branch: 'topic', files: { 'config.yml': 'version: 2\n' } });
    const testTip = await ctx.fake.commit({ repo: REPO, branch: 'test', from: base, files: { 'other.txt': 'o\n' } });
    const merged = await call('POST', '/merges', { base: 'test', head, commit_message: 'Merge topic' });
    expect(merged.status).toBe(201);
    const sha = (merged.body as { sha: string }).sha;
    expect(await ctx.fake.branchSha(REPO, 'test')).toBe(sha);
    const commit = (await call('GET', `/git/commits/${sha}`)).body as { parents: { sha: string }[]; message: string };
    expect(commit.parents.map((p) => p.sha)).toEqual([testTip, head]);
    expect(commit.message).toBe('Merge topic');
    expect((await call('POST', '/merges', { base: 'test', head })).status).toBe(204);
    await ctx.fake.commit({ repo: REPO, branch: 'clash', from: base, files: { 'config.yml': 'version: 3\n' } });
    expect(await call('POST', '/merges', { base: 'clash', head })).toMatchObject({ status: 409, body: { message: 'Merge conflict' } });
    expect(await call('POST', '/merges', { base: 'nope', head })).toMatchObject({ status: 404, body: { message: 'Base does not exist' } });
  });

  test('when two commits are compared, then ahead, behind, diverged and identical come out as on GitHub', async () => {
    const base = await main();
    await ctx.fake.commit({ repo: REPO, branch: 'ahead', files: { 'a.txt': 'a\n' } });
    await ctx.fake.commit({ repo: REPO, branch: 'ahead', files: { 'b.txt': 'b\n' } });
    const status = async (basehead: string) =>
      (await call('GET', `/compare/${basehead}`)).body as { status: string; ahead_by: number; behind_by: number; commits: unknown[] };
    expect(await status('main...ahead')).toMatchObject({ status: 'ahead', ahead_by: 2, behind_by: 0, commits: [{}, {}] });
    expect(await status('ahead...main')).toMatchObject({ status: 'behind', ahead_by: 0, behind_by: 2 });
    expect(await status(`${base}...main`)).toMatchObject({ status: 'identical' });
    await ctx.fake.commit({ repo: REPO, branch: 'main', files: { 'c.txt': 'c\n' } });
    expect(await status('main...ahead')).toMatchObject({ status: 'diverged', ahead_by: 2, behind_by: 1 });
  });

  test('when a file is read at a ref, then its content is that ref’s, base64 encoded', async () => {
    await ctx.fake.commit({ repo: REPO, branch: 'next', files: { 'config.yml': 'version: 2\n', 'dir/x.txt': 'x\n' } });
    const read = async (query: string) => (await call('GET', `/contents/config.yml${query}`)).body as { content: string; encoding: string };
    const decode = (file: { content: string }) => Buffer.from(file.content, 'base64').toString('utf8');
    expect(decode(await read(''))).toBe('version: 1\n');
    expect(decode(await read('?ref=next'))).toBe('version: 2\n');
    expect((await call('GET', '/contents/missing.yml?ref=next')).status).toBe(404);
    expect((await call('GET', '/contents/config.yml?ref=nope')).status).toBe(404);
    const dir = (await call('GET', '/contents/dir?ref=next')).body as { type: string; path: string }[];
    expect(dir).toEqual([expect.objectContaining({ type: 'file', path: 'dir/x.txt' })]);
  });

  test('when a commit is created from a tree and parents, then it reads back with them', async () => {
    const base = await main();
    const tree = await ctx.fake.treeOf(REPO, base);
    const created = await call('POST', '/git/commits', {
      message: 'Same tree',
      tree,
      parents: [base],
      author: { name: 'A', email: 'a@example.test', date: '2026-01-02T03:04:05Z' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      message: 'Same tree',
      tree: { sha: tree },
      parents: [{ sha: base }],
      author: { name: 'A', date: '2026-01-02T03:04:05Z' },
    });
    expect((await call('POST', '/git/commits', { message: 'x', tree: 'f'.repeat(40), parents: [base] })).status).toBe(422);
    const listed = (await call('GET', `/git/trees/${base}?recursive=1`)).body as { tree: { path: string }[] };
    expect(listed.tree.map((e) => e.path).sort()).toEqual(['README.md', 'config.yml']);
  });
});

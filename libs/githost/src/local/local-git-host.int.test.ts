import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { commitOnBranch, createRepoWithCommits, openPr, repoBed } from '@railyard/testkit';
import { isGitHostError } from '../errors';
import { LocalGitAdmin } from './admin';
import { runGit } from './git-helper';
import { LocalGitHost } from './local-git-host';

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };

const bed = repoBed(repo, { files: { 'a.txt': 'one\ntwo\nthree\n', 'b.txt': 'b\n' } });

describe('LocalGitHost.getPullRequest', () => {
  let admin: LocalGitAdmin;
  let host: LocalGitHost;

  beforeEach(async () => {
    admin = new LocalGitAdmin({ root: bed.root });
    host = new LocalGitHost({ root: bed.root });
  });

  afterEach(() => host.close());

  it('when a PR is opened without title or author, then they come from the head commit', async () => {
    const head = await commitOnBranch(bed.root, repo, {
      branch: 'feature',
      files: { 'b.txt': 'b changed\n' },
      message: 'Change b\n\nA longer body.',
      author: { name: 'Ada Lovelace', email: 'ada@example.test' },
    });
    await openPr(bed.root, { repo, number: 7, head: 'feature' });

    expect(await host.getPullRequest(repo, 7)).toEqual({
      number: 7,
      title: 'Change b',
      author: 'Ada Lovelace',
      headSha: head,
      baseBranch: 'main',
      headBranch: 'feature',
      state: 'open',
      mergeability: 'mergeable',
    });
  });

  it('when title and author are given, then the snapshot carries them', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'c\n' } });
    await openPr(bed.root, { repo, number: 8, head: 'feature', title: 'Add c', author: 'grace' });

    const pr = await host.getPullRequest(repo, 8);
    expect(pr).toMatchObject({ title: 'Add c', author: 'grace' });
  });

  it('when the head and the base change the same line differently, then the PR is not mergeable', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'a.txt': 'one\nTWO from feature\nthree\n' } });
    await commitOnBranch(bed.root, repo, { branch: 'main', files: { 'a.txt': 'one\nTWO from main\nthree\n' } });
    await openPr(bed.root, { repo, number: 1, head: 'feature' });

    expect((await host.getPullRequest(repo, 1))?.mergeability).toBe('not_mergeable');
  });

  it('when head and base change different lines of one file, then the PR is mergeable', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'a.txt': 'ONE\ntwo\nthree\n' } });
    await commitOnBranch(bed.root, repo, { branch: 'main', files: { 'a.txt': 'one\ntwo\nTHREE\n' } });
    await openPr(bed.root, { repo, number: 1, head: 'feature' });

    expect((await host.getPullRequest(repo, 1))?.mergeability).toBe('mergeable');
  });

  it('when the PR targets another branch than main, then baseBranch names it and mergeability is against it', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'release', from: 'main', files: { 'r.txt': 'release\n' } });
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'a.txt': 'one\nfeature\nthree\n' } });
    await commitOnBranch(bed.root, repo, { branch: 'main', files: { 'a.txt': 'one\nmain\nthree\n' } });
    await openPr(bed.root, { repo, number: 3, head: 'feature', base: 'release' });

    expect(await host.getPullRequest(repo, 3)).toMatchObject({ baseBranch: 'release', mergeability: 'mergeable' });
  });

  it('when the repository or the PR does not exist, then the answer is null', async () => {
    expect(await host.getPullRequest({ ...repo, name: 'nope' }, 1)).toBeNull();
    expect(await host.getPullRequest({ ...repo, host: 'other.test' }, 1)).toBeNull();
    expect(await host.getPullRequest(repo, 99)).toBeNull();
  });

  it('when someone pushes to the branch a PR was opened from, then the PR head follows it; once closed, it stays', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'c\n' } });
    await openPr(bed.root, { repo, number: 6, head: 'feature' });
    // A plain push to the branch, as `git push origin feature` does: no `railyard pr update`.
    const pushed = await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'c, pushed later\n' } });

    expect(await host.getPullRequest(repo, 6)).toMatchObject({ headSha: pushed, headBranch: 'feature', mergeability: 'mergeable' });

    await admin.closePullRequest({ repo, number: 6 });
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'after the close\n' } });
    expect(await host.getPullRequest(repo, 6)).toMatchObject({ headSha: pushed, state: 'closed' });
  });

  it('when the PR head was set to a commit id, then a push to the branch does not move it', async () => {
    const first = await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'c\n' } });
    await openPr(bed.root, { repo, number: 9, head: first });
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'moved\n' } });

    expect((await host.getPullRequest(repo, 9))?.headSha).toBe(first);
  });

  it('when the PR file exists but its head ref does not, then the answer is null', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'c\n' } });
    await openPr(bed.root, { repo, number: 4, head: 'feature' });
    await runGit(bed.gitDir, ['update-ref', '-d', 'refs/pull/4/head']);

    expect(await host.getPullRequest(repo, 4)).toBeNull();
  });

  it('when a name could leave the git root, then the answer is null even if the path exists', async () => {
    // A real repository and PR one level above the root: `..` segments would reach it.
    const outside = path.join(bed.root, 'outside');
    await createRepoWithCommits(outside, repo);
    await commitOnBranch(outside, repo, { branch: 'feature', files: { 'x.txt': 'x\n' } });
    await openPr(outside, { repo, number: 1, head: 'feature' });
    const nested = new LocalGitHost({ root: path.join(outside, 'inner') });
    const escapes: RepoRef[] = [
      { host: '..', owner: repo.host, name: `${repo.owner}/${repo.name}` },
      { host: '..', owner: '..', name: 'x' },
      { host: repo.host, owner: '..', name: 'widgets' },
      { host: repo.host, owner: repo.owner, name: '../widgets' },
      { host: '/etc', owner: 'acme', name: 'widgets' },
      { host: repo.host, owner: repo.owner, name: 'widgets\0' },
      { host: repo.host, owner: repo.owner, name: '.' },
      { host: repo.host, owner: repo.owner, name: '' },
      { host: repo.host, owner: 'acme\\..', name: 'widgets' },
      { host: '-c', owner: 'acme', name: 'widgets' },
    ];
    try {
      for (const bad of escapes) expect(await nested.getPullRequest(bad, 1)).toBeNull();
      expect(await new LocalGitHost({ root: outside }).getPullRequest(repo, 1)).not.toBeNull();
    } finally {
      await nested.close();
    }
  });

  it('when the PR number is not a positive integer, then the answer is null', async () => {
    for (const n of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) expect(await host.getPullRequest(repo, n)).toBeNull();
  });

  /** Moves main past what the admin worked out when it opened the PRs, so their stored answers no longer count. */
  const moveMainPastStoredAnswers = () => commitOnBranch(bed.root, repo, { branch: 'main', files: { 'z.txt': 'z\n' } });

  it('when the admin opened the PR and nothing moved since, then its stored answer is given and git does not run', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'c\n' } });
    await openPr(bed.root, { repo, number: 5, head: 'feature' });

    expect((await host.getPullRequest(repo, 5))?.mergeability).toBe('mergeable');
    expect((await host.getPullRequest(repo, 5, { mergeability: 'known' }))?.mergeability).toBe('mergeable');
    expect(host.stats().mergeTreeRuns).toBe(0);
  });

  it('when only what is known is asked and the stored answer is stale, then it is unspecified and git does not run', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'c\n' } });
    await openPr(bed.root, { repo, number: 5, head: 'feature' });
    await moveMainPastStoredAnswers();

    expect((await host.getPullRequest(repo, 5, { mergeability: 'known' }))?.mergeability).toBe('unspecified');
    expect(host.stats().mergeTreeRuns).toBe(0);
  });

  it('when nothing changed between two reads, then git runs once', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'c\n' } });
    await openPr(bed.root, { repo, number: 5, head: 'feature' });
    await moveMainPastStoredAnswers();

    const first = await host.getPullRequest(repo, 5);
    const second = await host.getPullRequest(repo, 5);

    expect(second).toEqual(first);
    expect(host.stats()).toEqual({ mergeTreeRuns: 1, mergeabilityCacheHits: 1 });
  });

  it('when many reads of one PR arrive at once, then one git run answers them all', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'c\n' } });
    await openPr(bed.root, { repo, number: 5, head: 'feature' });
    await moveMainPastStoredAnswers();

    const answers = await Promise.all(Array.from({ length: 20 }, () => host.getPullRequest(repo, 5)));

    expect(new Set(answers.map((a) => a?.mergeability))).toEqual(new Set(['mergeable']));
    expect(host.stats().mergeTreeRuns).toBe(1);
  });

  it('when the head ref moves, then the next read has the new head and a fresh mergeability', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'main', files: { 'a.txt': 'one\nmain\nthree\n' } });
    await commitOnBranch(bed.root, repo, { branch: 'feature', from: 'main~1', files: { 'a.txt': 'one\nfeature\nthree\n' } });
    await openPr(bed.root, { repo, number: 2, head: 'feature' });
    expect((await host.getPullRequest(repo, 2))?.mergeability).toBe('not_mergeable');

    const fixed = await commitOnBranch(bed.root, repo, { branch: 'fixed', from: 'main', files: { 'c.txt': 'c\n' } });
    await admin.updatePullRequest({ repo, number: 2, head: 'fixed' });

    expect(await host.getPullRequest(repo, 2)).toMatchObject({ headSha: fixed, mergeability: 'mergeable' });
  });

  it('when the base branch moves, then mergeability is computed again', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'a.txt': 'one\nfeature\nthree\n' } });
    await openPr(bed.root, { repo, number: 2, head: 'feature' });
    expect((await host.getPullRequest(repo, 2))?.mergeability).toBe('mergeable');

    await commitOnBranch(bed.root, repo, { branch: 'main', files: { 'a.txt': 'one\nmain\nthree\n' } });

    expect((await host.getPullRequest(repo, 2))?.mergeability).toBe('not_mergeable');
    // The first answer was the one the admin stored when it opened the PR; the moved base needs git.
    expect(host.stats().mergeTreeRuns).toBe(1);
  });

  it('when the PR is retargeted, then baseBranch and mergeability follow the new base', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'release', from: 'main', files: { 'a.txt': 'one\nrelease\nthree\n' } });
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'a.txt': 'one\nfeature\nthree\n' } });
    await openPr(bed.root, { repo, number: 2, head: 'feature' });
    expect((await host.getPullRequest(repo, 2))?.mergeability).toBe('mergeable');

    await admin.updatePullRequest({ repo, number: 2, base: 'release' });

    expect(await host.getPullRequest(repo, 2)).toMatchObject({ baseBranch: 'release', mergeability: 'not_mergeable' });
  });

  it('when the base branch no longer exists, then the PR is not mergeable', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'release', from: 'main', files: { 'r.txt': 'r\n' } });
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'c\n' } });
    await openPr(bed.root, { repo, number: 2, head: 'feature', base: 'release' });
    await runGit(bed.gitDir, ['update-ref', '-d', 'refs/heads/release']);

    expect(await host.getPullRequest(repo, 2)).toMatchObject({ baseBranch: 'release', mergeability: 'not_mergeable' });
  });

  it('when refs are packed, then they are read from packed-refs, and a newer loose ref wins', async () => {
    const head = await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'c\n' } });
    await openPr(bed.root, { repo, number: 6, head: 'feature' });
    await runGit(bed.gitDir, ['pack-refs', '--all']);
    await expect(fs.stat(path.join(bed.gitDir, 'refs/pull/6/head'))).rejects.toThrow();
    await expect(fs.stat(path.join(bed.gitDir, 'refs/heads/main'))).rejects.toThrow();

    expect(await host.getPullRequest(repo, 6)).toMatchObject({ headSha: head, mergeability: 'mergeable' });

    await commitOnBranch(bed.root, repo, { branch: 'main', files: { 'c.txt': 'conflicting c\n' } });
    const moved = await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'd.txt': 'd\n' } });
    await admin.updatePullRequest({ repo, number: 6, head: moved });

    expect(await host.getPullRequest(repo, 6)).toMatchObject({ headSha: moved, mergeability: 'not_mergeable' });
  });

  it('when packed-refs is rewritten, then the new packed values are read', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'c\n' } });
    await openPr(bed.root, { repo, number: 6, head: 'feature' });
    await runGit(bed.gitDir, ['pack-refs', '--all']);
    await host.getPullRequest(repo, 6);

    const moved = await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'd.txt': 'd\n' } });
    await admin.updatePullRequest({ repo, number: 6, head: moved });
    await runGit(bed.gitDir, ['pack-refs', '--all']);

    expect((await host.getPullRequest(repo, 6))?.headSha).toBe(moved);
  });

  it('when the PR is closed or merged, then the state says so and it is not mergeable', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'c\n' } });
    await commitOnBranch(bed.root, repo, { branch: 'other', files: { 'd.txt': 'd\n' } });
    await openPr(bed.root, { repo, number: 1, head: 'feature' });
    await openPr(bed.root, { repo, number: 2, head: 'other' });

    await admin.closePullRequest({ repo, number: 1 });
    await admin.markPullRequestMerged({ repo, number: 2 });

    expect(await host.getPullRequest(repo, 1)).toMatchObject({ state: 'closed', mergeability: 'not_mergeable' });
    expect(await host.getPullRequest(repo, 2)).toMatchObject({ state: 'merged', mergeability: 'not_mergeable' });
  });

  it('when a PR is made by hand as docs/githost.md describes, then it is read like any other', async () => {
    const head = await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'c\n' } });
    await runGit(bed.gitDir, ['update-ref', 'refs/pull/12/head', head]);
    await fs.mkdir(path.join(bed.gitDir, 'railyard/pulls'), { recursive: true });
    const file = {
      version: 1,
      number: 12,
      title: 'Made by a script',
      author: 'shell',
      baseBranch: 'main',
      state: 'open',
      createdAt: '2025-01-01T00:00:00Z',
      updatedAt: '2025-01-01T00:00:00Z',
      labels: ['kept'],
    };
    await fs.writeFile(path.join(bed.gitDir, 'railyard/pulls/12.json.lock'), JSON.stringify(file));
    await fs.rename(path.join(bed.gitDir, 'railyard/pulls/12.json.lock'), path.join(bed.gitDir, 'railyard/pulls/12.json'));

    expect(await host.getPullRequest(repo, 12)).toEqual({
      number: 12,
      title: 'Made by a script',
      author: 'shell',
      headSha: head,
      baseBranch: 'main',
      state: 'open',
      mergeability: 'mergeable',
    });
  });

  it('when a PR file is malformed, then reading it fails with CORRUPT_PR_FILE', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'c.txt': 'c\n' } });
    await openPr(bed.root, { repo, number: 9, head: 'feature' });
    const file = path.join(bed.gitDir, 'railyard/pulls/9.json');

    for (const bad of [
      '{not json',
      '[]',
      JSON.stringify({ version: 2 }),
      JSON.stringify({ ...JSON.parse(await fs.readFile(file, 'utf8')), baseBranch: '../x' }),
    ]) {
      await fs.writeFile(file, bad);
      const err: unknown = await host.getPullRequest(repo, 9).catch((e: unknown) => e);
      expect(isGitHostError(err, 'CORRUPT_PR_FILE')).toBe(true);
    }
  });
});

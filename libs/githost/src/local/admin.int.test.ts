import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { commitOnBranch, repoBed } from '@railyard/testkit';
import type { GitHostError } from '../errors';
import { failsWith } from './testing/fails-with';
import { LocalGitAdmin } from './admin';
import { runGit } from './git-helper';

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };

const bed = repoBed(repo, { files: { 'a.txt': 'a\n' } });

describe('LocalGitAdmin', () => {
  let clock: Date;
  let admin: LocalGitAdmin;

  beforeEach(async () => {
    clock = new Date('2025-03-01T10:00:00.000Z');
    admin = new LocalGitAdmin({ root: bed.root, now: () => clock });
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'f.txt': 'f\n' }, message: 'Add f' });
  });

  it('when a repository is initialised, then it is bare with main as its default branch', async () => {
    const dir = await admin.initRepository({ host: 'git.test', owner: 'acme', name: 'fresh' });

    expect(dir).toBe(path.join(bed.root, 'git.test', 'acme', 'fresh.git'));
    expect((await runGit(dir, ['rev-parse', '--is-bare-repository'])).stdout.trim()).toBe('true');
    expect((await runGit(dir, ['symbolic-ref', 'HEAD'])).stdout.trim()).toBe('refs/heads/main');
  });

  it('when a PR is opened, then its file holds the documented fields and no lock is left behind', async () => {
    const record = await admin.openPullRequest({ repo, number: 1, head: 'feature', base: 'main' });

    const text = await fs.readFile(path.join(bed.gitDir, 'railyard/pulls/1.json'), 'utf8');
    expect(JSON.parse(text)).toEqual({
      version: 1,
      number: 1,
      title: 'Add f',
      author: 'Test Author',
      baseBranch: 'main',
      headBranch: 'feature',
      state: 'open',
      createdAt: '2025-03-01T10:00:00.000Z',
      updatedAt: '2025-03-01T10:00:00.000Z',
      mergeability: {
        baseSha: (await runGit(bed.gitDir, ['rev-parse', 'main'])).stdout.trim(),
        headSha: record.headSha,
        value: 'mergeable',
      },
    });
    expect(await fs.readdir(path.join(bed.gitDir, 'railyard/pulls'))).toEqual(['1.json']);
    expect((await runGit(bed.gitDir, ['rev-parse', 'refs/pull/1/head'])).stdout.trim()).toBe(record.headSha);
  });

  it('when the head is given as an abbreviated commit id, then the PR head is that commit', async () => {
    const sha = (await runGit(bed.gitDir, ['rev-parse', 'feature'])).stdout.trim();

    const record = await admin.openPullRequest({ repo, number: 1, head: sha.slice(0, 10), base: 'main' });

    expect(record.headSha).toBe(sha);
    // A commit id names no branch: the PR cannot be found by one.
    expect(record.headBranch).toBeUndefined();
  });

  it('when the number is already open, then opening it again is refused', async () => {
    await admin.openPullRequest({ repo, number: 1, head: 'feature', base: 'main' });

    await failsWith(admin.openPullRequest({ repo, number: 1, head: 'main', base: 'main' }), 'PR_ALREADY_OPEN');
  });

  it('when a closed number is opened again, then it reopens and keeps its creation time', async () => {
    await admin.openPullRequest({ repo, number: 1, head: 'feature', base: 'main', title: 'first' });
    await admin.closePullRequest({ repo, number: 1 });
    clock = new Date('2025-03-02T10:00:00.000Z');

    const record = await admin.openPullRequest({ repo, number: 1, head: 'feature', base: 'main', title: 'again' });

    expect(record).toMatchObject({
      state: 'open',
      title: 'again',
      createdAt: '2025-03-01T10:00:00.000Z',
      updatedAt: '2025-03-02T10:00:00.000Z',
    });
  });

  it('when a PR is merged, then its head ref keeps its head: rewritten only when its branch moved since it was written', async () => {
    const refFile = (n: number): string => path.join(bed.gitDir, 'refs', 'pull', String(n), 'head');
    const pullHead = async (n: number): Promise<string> => (await runGit(bed.gitDir, ['rev-parse', `refs/pull/${n}/head`])).stdout.trim();
    const still = await admin.openPullRequest({ repo, number: 1, head: 'feature', base: 'main' });
    // A lock file makes any update-ref of the ref fail: the merge succeeding says none ran (issue 26: one git less per merge).
    await fs.writeFile(`${refFile(1)}.lock`, '');
    await admin.markPullRequestMerged({ repo, number: 1 });
    await fs.rm(`${refFile(1)}.lock`);
    expect(await pullHead(1)).toBe(still.headSha);

    await commitOnBranch(bed.root, repo, { branch: 'other', files: { 'o.txt': 'o\n' } });
    await admin.openPullRequest({ repo, number: 2, head: 'other', base: 'main' });
    const moved = await commitOnBranch(bed.root, repo, { branch: 'other', files: { 'p.txt': 'p\n' } });
    await admin.markPullRequestMerged({ repo, number: 2 });
    expect(await pullHead(2)).toBe(moved);
  });

  it('when a merged number is opened again, then it is refused', async () => {
    await admin.openPullRequest({ repo, number: 1, head: 'feature', base: 'main' });
    await admin.markPullRequestMerged({ repo, number: 1 });

    await failsWith(admin.openPullRequest({ repo, number: 1, head: 'feature', base: 'main' }), 'PR_MERGED');
  });

  it('when the head, base or repository is unknown or invalid, then opening is refused with a reason', async () => {
    await failsWith(admin.openPullRequest({ repo, number: 1, head: 'no-such-branch', base: 'main' }), 'REVISION_NOT_FOUND');
    await failsWith(admin.openPullRequest({ repo, number: 1, head: 'deadbeef', base: 'main' }), 'REVISION_NOT_FOUND');
    await failsWith(admin.openPullRequest({ repo, number: 1, head: 'main~1', base: 'main' }), 'REVISION_NOT_FOUND');
    await failsWith(admin.openPullRequest({ repo, number: 1, head: 'feature', base: 'release' }), 'BRANCH_NOT_FOUND');
    await failsWith(admin.openPullRequest({ repo, number: 1, head: 'feature', base: '../../x' }), 'INVALID_INPUT');
    await failsWith(admin.openPullRequest({ repo: { ...repo, name: 'nope' }, number: 1, head: 'feature', base: 'main' }), 'REPO_NOT_FOUND');
    await failsWith(admin.openPullRequest({ repo: { ...repo, owner: '..' }, number: 1, head: 'feature', base: 'main' }), 'INVALID_INPUT');
    await failsWith(admin.openPullRequest({ repo, number: 0, head: 'feature', base: 'main' }), 'INVALID_INPUT');
    await expect(fs.stat(path.join(bed.gitDir, 'railyard/pulls'))).rejects.toThrow();
    await expect(fs.stat(path.join(bed.gitDir, 'refs/pull'))).rejects.toThrow();
  });

  it('when a PR is updated, then head, base and title change and the rest stays', async () => {
    await commitOnBranch(bed.root, repo, { branch: 'release', from: 'main', files: { 'r.txt': 'r\n' } });
    await admin.openPullRequest({ repo, number: 1, head: 'feature', base: 'main', author: 'ada' });
    const moved = await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'g.txt': 'g\n' } });
    clock = new Date('2025-03-01T11:00:00.000Z');

    const record = await admin.updatePullRequest({ repo, number: 1, head: 'feature', base: 'release', title: 'Retitled' });

    expect(record).toMatchObject({
      headSha: moved,
      baseBranch: 'release',
      title: 'Retitled',
      author: 'ada',
      createdAt: '2025-03-01T10:00:00.000Z',
      updatedAt: '2025-03-01T11:00:00.000Z',
    });
  });

  it('when a closed or unknown PR is updated or closed, then it is refused', async () => {
    await admin.openPullRequest({ repo, number: 1, head: 'feature', base: 'main' });
    await admin.closePullRequest({ repo, number: 1 });

    await failsWith(admin.updatePullRequest({ repo, number: 1, title: 'x' }), 'PR_CLOSED');
    await failsWith(admin.closePullRequest({ repo, number: 1 }), 'PR_CLOSED');
    await failsWith(admin.updatePullRequest({ repo, number: 2, title: 'x' }), 'PR_NOT_FOUND');
    await failsWith(admin.closePullRequest({ repo, number: 2 }), 'PR_NOT_FOUND');
  });

  it('when another writer holds the PR lock, then the change is refused and the lock is left alone', async () => {
    await admin.openPullRequest({ repo, number: 1, head: 'feature', base: 'main' });
    const lock = path.join(bed.gitDir, 'railyard/pulls/1.json.lock');
    await fs.writeFile(lock, '');

    await failsWith(admin.closePullRequest({ repo, number: 1 }), 'LOCKED');

    await expect(fs.stat(lock)).resolves.toBeTruthy();
  });

  it('when the file has fields this version does not know, then an update keeps them', async () => {
    await admin.openPullRequest({ repo, number: 1, head: 'feature', base: 'main' });
    const file = path.join(bed.gitDir, 'railyard/pulls/1.json');
    await fs.writeFile(file, JSON.stringify({ ...JSON.parse(await fs.readFile(file, 'utf8')), labels: ['ui'] }));

    await admin.updatePullRequest({ repo, number: 1, title: 'New title' });

    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toMatchObject({ title: 'New title', labels: ['ui'] });
  });

  it('when two opens of one number race, then exactly one succeeds', async () => {
    const results = await Promise.allSettled([
      admin.openPullRequest({ repo, number: 5, head: 'feature', base: 'main' }),
      admin.openPullRequest({ repo, number: 5, head: 'main', base: 'main' }),
    ]);

    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(['LOCKED', 'PR_ALREADY_OPEN']).toContain((failure?.reason as GitHostError).code);
  });
});

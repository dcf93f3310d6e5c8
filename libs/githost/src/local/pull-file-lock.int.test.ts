import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { commitOnBranch, repoBed } from '@railyard/testkit';
import { failsWith } from './testing/fails-with';
import { LocalGitAdmin } from './admin';
import { ORPHAN_LOCK_AGE_MS } from './lock-owner';

/** A PR's lock file when its writer was killed mid-write (the engine-crash e2e found the PR blocked for ever). */

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const bed = repoBed(repo, { files: { 'a.txt': 'a\n' } });
const lockOf = (n: number): string => path.join(bed.gitDir, `railyard/pulls/${n}.json.lock`);

/** A real process that takes PR #n's lock through the library and then waits to be killed. */
const holdLockInAnotherProcess = async (n: number): Promise<{ kill9: () => Promise<void> }> => {
  const script = `
    const loaded = await import(${JSON.stringify(path.join(__dirname, 'pull-file.ts'))});
    const { PullFileLock } = loaded.default ?? loaded;
    await PullFileLock.acquire(${JSON.stringify(bed.gitDir)}, ${n});
    process.stdout.write('held\\n');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
    child.on('exit', (code) => reject(new Error(`the lock holder exited with ${String(code)}`)));
  });
  return {
    kill9: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.on('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
};

describe('a PR lock whose writer is gone', () => {
  let admin: LocalGitAdmin;
  beforeEach(async () => {
    admin = new LocalGitAdmin({ root: bed.root });
    await commitOnBranch(bed.root, repo, { branch: 'feature', files: { 'f.txt': 'f\n' }, message: 'Add f' });
    await admin.openPullRequest({ repo, number: 1, head: 'feature', base: 'main' });
  });

  it('when the writer holding the lock is alive, then a change is refused and the lock is left alone', async () => {
    const holder = await holdLockInAnotherProcess(1);
    try {
      await failsWith(admin.closePullRequest({ repo, number: 1 }), 'LOCKED');
      expect(JSON.parse(await fs.readFile(lockOf(1), 'utf8'))).toMatchObject({ host: expect.any(String), pid: expect.any(Number) });
    } finally {
      await holder.kill9();
    }
  });

  it('when the writer was killed with -9 while it held the lock, then the next change takes the lock over and lands', async () => {
    const holder = await holdLockInAnotherProcess(1);
    await holder.kill9();

    await expect(admin.markPullRequestMerged({ repo, number: 1 })).resolves.toMatchObject({ state: 'merged' });

    await expect(fs.stat(lockOf(1))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await fs.readdir(path.dirname(lockOf(1)))).sort()).toEqual(['1.json']);
  });

  it('when an ownerless lock is older than any write takes, then it is taken over; a fresh one is not', async () => {
    await fs.writeFile(lockOf(1), '');
    await failsWith(admin.updatePullRequest({ repo, number: 1, title: 'fresh lock' }), 'LOCKED');

    const old = new Date(Date.now() - ORPHAN_LOCK_AGE_MS - 60_000);
    await fs.utimes(lockOf(1), old, old);
    await expect(admin.updatePullRequest({ repo, number: 1, title: 'after the orphan' })).resolves.toMatchObject({
      title: 'after the orphan',
    });
  });

  it('when the writer was killed inside its commit, then the half-written content it left is removed with its lock', async () => {
    const dead = 2 ** 22 + 7;
    await fs.writeFile(lockOf(1), JSON.stringify({ pid: dead, host: hostname() }));
    await fs.writeFile(path.join(bed.gitDir, `railyard/pulls/1.json.new-${dead}`), '{"version": 1, "numb');

    await admin.updatePullRequest({ repo, number: 1, title: 'New title' });

    const written = JSON.parse(await fs.readFile(path.join(bed.gitDir, 'railyard/pulls/1.json'), 'utf8')) as Record<string, unknown>;
    expect(written).toMatchObject({ number: 1, title: 'New title' });
    expect(written).not.toHaveProperty('pid');
    expect(await fs.readdir(path.dirname(lockOf(1)))).toEqual(['1.json']);
  });
});

import { chmod, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { deflateSync } from 'node:zlib';
import type { RepoRef } from '@railyard/domain';
import { repoDirOf, runGit } from '@railyard/githost';
import { commitOnBranch, createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { readFilesAtCommit } from './files-at-commit';
import { readRepoConfig } from './repo-config';

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'kept' };
let root: string;

beforeAll(async () => {
  root = await makeTempDir();
});
afterAll(() => removeTempDir(root));

describe('readRepoConfig', () => {
  it('when the same commit is read again, then the same config answers', async () => {
    const { sha } = await createRepoWithCommits(root, repo, { files: { '.railyard.yml': 'ci:\n  test: make\n' } });
    const first = await readRepoConfig(root, repo, sha);
    expect(first.railyard?.ok && first.railyard.config.checks.map((c) => c.name)).toEqual(['test']);
    expect(await readRepoConfig(root, repo, sha)).toBe(first);
  });

  it('when the repository is removed after its config was read, then the next read says it is not found instead of answering the kept config', async () => {
    const gone: RepoRef = { ...repo, name: 'gone' };
    const { sha } = await createRepoWithCommits(root, gone, { files: { '.railyard.yml': 'ci:\n  test: make\n' } });
    await readRepoConfig(root, gone, sha);
    await rm(repoDirOf(root, gone) as string, { recursive: true, force: true });
    await expect(readRepoConfig(root, gone, sha)).rejects.toMatchObject({ code: 'REPO_NOT_FOUND' });
  });
});

const blobs: RepoRef = { ...repo, name: 'blobs' };

describe('readFilesAtCommit', () => {
  it('when another commit holds the same file, then its text is answered from memory: a blob id names its bytes', async () => {
    const { sha } = await createRepoWithCommits(root, blobs, { files: { 'config.yml': 'one\n' } });
    const gitDir = repoDirOf(root, blobs) as string;
    const next = await commitOnBranch(root, blobs, { branch: 'main', files: { 'other.txt': 'x\n' } });
    const first = await readFilesAtCommit(gitDir, sha, ['config.yml'], 1024);
    expect(first.files.get('config.yml')).toEqual({ kind: 'file', text: 'one\n' });
    // The blob's loose object now holds other bytes of the same size: git would read those; only memory answers "one".
    const oid = (await runGit(gitDir, ['rev-parse', `${next}:config.yml`])).stdout.trim();
    const file = path.join(gitDir, 'objects', oid.slice(0, 2), oid.slice(2));
    await chmod(file, 0o644);
    await writeFile(file, deflateSync(Buffer.from('blob 4\0two\n')));
    const again = await readFilesAtCommit(gitDir, next, ['config.yml'], 1024);
    expect(again.files.get('config.yml')).toEqual({ kind: 'file', text: 'one\n' });
  });
});

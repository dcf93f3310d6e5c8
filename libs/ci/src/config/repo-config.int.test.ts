import { rm } from 'node:fs/promises';
import type { RepoRef } from '@railyard/domain';
import { repoDirOf } from '@railyard/githost';
import { createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
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

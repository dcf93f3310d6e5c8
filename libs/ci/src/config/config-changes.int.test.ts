import type { RepoRef } from '@railyard/domain';
import { commitOnBranch, createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { configChangesBetween } from './config-changes';

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
let root: string;
let base: string;

beforeAll(async () => {
  root = await makeTempDir();
  ({ sha: base } = await createRepoWithCommits(root, repo, { files: { 'README.md': 'x\n', '.railyard.yml': 'ci:\n  test: make\n' } }));
});
afterAll(() => removeTempDir(root));

const child = (branch: string, files: Record<string, string | null>): Promise<string> =>
  commitOnBranch(root, repo, { branch, from: base, files });

describe('configChangesBetween', () => {
  it('when a commit leaves the configuration files alone, then nothing changed', async () => {
    expect(await configChangesBetween(root, repo, base, await child('plain', { 'a.txt': 'a\n' }))).toEqual([]);
  });

  it('when a commit edits .railyard.yml and adds .trunk/trunk.yaml, then both are named', async () => {
    const sha = await child('both', {
      '.railyard.yml': 'ci:\n  test: "true"\n',
      '.trunk/trunk.yaml': 'merge:\n  required_statuses: [lint]\n',
    });
    expect(await configChangesBetween(root, repo, base, sha)).toEqual(['.railyard.yml', '.trunk/trunk.yaml']);
  });

  it('when a commit removes .railyard.yml or makes it a directory, then it is named', async () => {
    expect(await configChangesBetween(root, repo, base, await child('gone', { '.railyard.yml': null }))).toEqual(['.railyard.yml']);
    expect(await configChangesBetween(root, repo, base, await child('dir', { '.railyard.yml': null, '.railyard.yml/x': 'y' }))).toEqual([
      '.railyard.yml',
    ]);
  });
});

import path from 'node:path';
import { LocalRepoFacts } from '@railyard/githost';
import { runGit } from '@railyard/githost';
import type { RepoRef } from '@railyard/testhealth';
import { commitOnBranch, createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { DEFAULT_BRANCH, INITIAL_FILES, repoFactsContract } from './repofacts.contract';

const REPO: RepoRef = { host: 'git.contract', owner: 'acme', name: 'widgets' };

repoFactsContract('local git host', async () => {
  const dir = await makeTempDir('railyard-repofacts-');
  const root = path.join(dir, 'git');
  const { gitDir, sha } = await createRepoWithCommits(root, REPO, { files: INITIAL_FILES });
  // The default branch is whatever HEAD names in the bare repository.
  await runGit(gitDir, ['update-ref', `refs/heads/${DEFAULT_BRANCH}`, sha]);
  await runGit(gitDir, ['symbolic-ref', 'HEAD', `refs/heads/${DEFAULT_BRANCH}`]);
  await runGit(gitDir, ['update-ref', '-d', 'refs/heads/main']);
  return {
    facts: new LocalRepoFacts(root),
    repo: REPO,
    unknown: { ...REPO, name: 'nothing' },
    push: (branch, files) => commitOnBranch(root, REPO, { branch, from: DEFAULT_BRANCH, files }),
    treeOf: async (commit) => (await runGit(gitDir, ['rev-parse', `${commit}^{tree}`])).stdout.trim(),
    close: () => removeTempDir(dir),
  };
});

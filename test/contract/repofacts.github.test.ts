import { GithubRepoFacts } from '@railyard/github';
import type { RepoRef } from '@railyard/testhealth';
import { DEFAULT_BRANCH, INITIAL_FILES, repoFactsContract } from './repofacts.contract';
import { GITHUB_HOST, startGithubBed } from './support/github-bed';

const REPO: RepoRef = { host: GITHUB_HOST, owner: 'acme', name: 'gadgets' };
const FULL = `${REPO.owner}/${REPO.name}`;

repoFactsContract('GitHub adapter on the fake GitHub', async () => {
  const bed = await startGithubBed();
  const { fake } = bed;
  await fake.createRepo({ repo: FULL, defaultBranch: DEFAULT_BRANCH, files: INITIAL_FILES });
  return {
    // Heads are trusted for a millisecond: the contract pushes and reads back at once.
    facts: new GithubRepoFacts({ app: bed.app, ttlMs: 1 }),
    repo: REPO,
    unknown: { ...REPO, name: 'nothing' },
    push: (branch, files) => fake.commit({ repo: FULL, branch, from: DEFAULT_BRANCH, files }),
    treeOf: (sha) => fake.treeOf(FULL, sha),
    close: async () => {
      const violations = [...fake.violations];
      await bed.close();
      expect(violations).toEqual([]);
    },
  };
});

// Every fact is an HTTP call to the fake GitHub: slower than git on disk, above all on a loaded machine.
// Set before any test runs (jest runs the tests after the whole file was read).
jest.setTimeout(60_000);

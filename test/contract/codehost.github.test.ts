import type { RepoRef } from '@railyard/domain';
import { codeHostContract } from './codehost.contract';
import { GITHUB_HOST, startGithubBed } from './support/github-bed';

// Every step is an HTTP call to the fake GitHub: slower than git on disk, above all on a loaded machine.
jest.setTimeout(60_000);

const REPO: RepoRef = { host: GITHUB_HOST, owner: 'acme', name: 'widgets' };
const FULL = 'acme/widgets';

codeHostContract('GitHub adapter on the fake GitHub', async () => {
  const bed = await startGithubBed();
  const { fake } = bed;
  return {
    host: bed.host,
    repo: REPO,
    base: 'main',
    openPr: async (number, files) => {
      const sha = await fake.commit({ repo: FULL, branch: `pr-${number}`, from: 'main', files });
      const pr = await fake.openPullRequest({ repo: FULL, head: `pr-${number}`, base: 'main', title: `PR ${number}` });
      if (pr.number !== number) throw new Error(`the fake numbered the PR ${pr.number}, the contract asked for ${number}`);
      return sha;
    },
    pushToPr: (number, files) => fake.commit({ repo: FULL, branch: `pr-${number}`, files }),
    pushToBranch: (branch, files) => fake.commit({ repo: FULL, branch, files }),
    postStatus: async (sha, context, state) => {
      await fake.ci.reportStatus({ repo: FULL, sha, context, state });
    },
    fileAt: (sha, file) => bed.fileAt(FULL, sha, file),
    close: async () => {
      const violations = [...fake.violations];
      await bed.close();
      expect(violations).toEqual([]);
    },
  };
});

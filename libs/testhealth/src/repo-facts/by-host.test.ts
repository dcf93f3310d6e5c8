import { parseCodeowners } from '../codeowners/codeowners';
import { repoFactsByHost } from './by-host';
import type { RepoFacts } from './port';

/** Facts that answer only with their own name: which adapter a call reached is then plain to see. */
const named = (name: string): RepoFacts => ({
  exists: () => Promise.resolve(true),
  defaultBranch: () => Promise.resolve(name),
  treeOf: () => Promise.resolve(name),
  testBranchOf: () => Promise.resolve(name),
  codeowners: () => Promise.resolve(parseCodeowners(`* @${name}`)),
});

describe('repoFactsByHost', () => {
  const facts = repoFactsByHost(named('local'), new Map([['GitHub.com', named('github')]]));
  const repo = (host: string) => ({ host, owner: 'acme', name: 'widgets' });

  it("when a repository's host is the configured GitHub's in any case, then every fact comes from the GitHub adapter", async () => {
    for (const host of ['github.com', 'GITHUB.COM']) {
      expect(await facts.defaultBranch(repo(host))).toBe('github');
      expect(await facts.treeOf(repo(host), 'a'.repeat(40))).toBe('github');
      expect(await facts.testBranchOf(repo(host), 'run-1')).toBe('github');
      expect((await facts.codeowners(repo(host))).ownersOf('x')).toEqual(['@github']);
    }
  });

  it('when the host is any other, then the local git host answers', async () => {
    expect(await facts.defaultBranch(repo('git.local'))).toBe('local');
    expect(await facts.treeOf(repo('github.example'), 'a'.repeat(40))).toBe('local');
    expect((await facts.codeowners(repo('git.local'))).ownersOf('x')).toEqual(['@local']);
  });
});

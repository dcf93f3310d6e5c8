import type { RepoFacts } from './port';

/**
 * RepoFacts that hands each call to the adapter of the repository's host: the configured GitHub's
 * host name (RAILYARD_GITHUB_HOST, github.com by default) to the GitHub adapter, every other host to
 * the local git host, by the same rule the engine routes its code host (docs/githost.md).
 */
export const repoFactsByHost = (fallback: RepoFacts, routes: ReadonlyMap<string, RepoFacts>): RepoFacts => {
  const byHost = new Map([...routes].map(([host, facts]) => [host.toLowerCase(), facts]));
  const of = (host: string): RepoFacts => byHost.get(host.toLowerCase()) ?? fallback;
  return {
    exists: (repo) => of(repo.host).exists(repo),
    defaultBranch: (repo) => of(repo.host).defaultBranch(repo),
    treeOf: (repo, sha) => of(repo.host).treeOf(repo, sha),
    testBranchOf: (repo, testRunId) => of(repo.host).testBranchOf(repo, testRunId),
    codeowners: (repo) => of(repo.host).codeowners(repo),
  };
};

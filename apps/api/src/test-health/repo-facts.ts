import { GithubRepoFacts, type GithubApp } from '@railyard/github';
import { repoFactsByHost, type RepoFacts } from '@railyard/testhealth';
import { LocalRepoFacts } from '@railyard/githost';

/**
 * Test health's RepoFacts for a process: repositories of the configured GitHub (its host name,
 * RAILYARD_GITHUB_HOST) through the App, every other through the local git host's bare repositories,
 * as the engine routes its code host (docs/test-health.md).
 */
export const repoFactsOf = (gitRoot: string, github?: { host: string; app: GithubApp }): RepoFacts => {
  const local = new LocalRepoFacts(gitRoot);
  if (!github) return local;
  return repoFactsByHost(local, new Map([[github.host, new GithubRepoFacts({ app: github.app })]]));
};

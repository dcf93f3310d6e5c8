export { GithubRepoFacts, type GithubRepoFactsOptions } from './repo-facts';

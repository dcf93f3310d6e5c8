import type { RepoRef } from '../events/events';

/** Hosts with a public web UI: their repositories link there; every other host links to this server. */
const FORGES = new Set(['github.com', 'gitlab.com', 'bitbucket.org', 'codeberg.org']);

const path = (...parts: string[]) => parts.map(encodeURIComponent).join('/');

/**
 * Trunk's `repository.html_url`: `https://github.com/acme/shop` for a forge; for the local host, this
 * server's `<base>/repos/<host>/<owner>/<name>` (the shape the local CI gives pull requests, GitHub's
 * REST paths with the host in front). The API's test views and the test_case webhooks both use it.
 */
export const repositoryHtmlUrl = (repo: RepoRef, base: string): string =>
  FORGES.has(repo.host.toLowerCase())
    ? `https://${repo.host}/${path(repo.owner, repo.name)}`
    : `${base}/repos/${path(repo.host, repo.owner, repo.name)}`;

/** Trunk's test `html_url`: the test's page, always on this server, `<base>/repos/<host>/<owner>/<name>/tests/<test id>`. */
export const testHtmlUrl = (repo: RepoRef, testId: string, base: string): string =>
  `${base}/repos/${path(repo.host, repo.owner, repo.name)}/tests/${encodeURIComponent(testId)}`;

import { Counter, type Registry } from 'prom-client';

/** REST calls to GitHub, counted per attempt (a retry is a second call against the rate limit). */

export const GITHUB_REQUESTS_METRIC = 'railyard_github_requests_total';

export type GithubRequestCounter = Counter<'route' | 'status'>;

/** The process's counter on `registry`, created on first use (several App clients may share it). */
export const githubRequestCounter = (registry: Registry): GithubRequestCounter =>
  (registry.getSingleMetric(GITHUB_REQUESTS_METRIC) as GithubRequestCounter | undefined) ??
  new Counter({
    name: GITHUB_REQUESTS_METRIC,
    help: 'REST requests Railyard made to GitHub, by route template (METHOD /path/{param}) and HTTP status (or "error" when no answer came).',
    labelNames: ['route', 'status'],
    registers: [registry],
  });

/**
 * The route template of a request, `GET /repos/{owner}/{repo}/pulls/{pull_number}`, never the
 * concrete URL. Octokit hands hooks the template; a full URL (a pagination link) is reduced to its
 * path with numbers and object ids replaced, so the label set stays bounded.
 */
export const routeLabel = (method: string, url: string, baseUrl: string): string => {
  if (!/^https?:\/\//.test(url)) return `${method} ${url.split('?')[0]}`;
  const path = new URL(url).pathname.slice(new URL(baseUrl).pathname.replace(/\/$/, '').length);
  const templated = path
    .split('/')
    .map((segment) => (/^\d+$/.test(segment) ? '{id}' : /^[0-9a-f]{40}$/.test(segment) ? '{sha}' : segment))
    .join('/');
  return `${method} ${templated}`;
};

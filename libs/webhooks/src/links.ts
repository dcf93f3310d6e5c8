import { repositoryHtmlUrl, testHtmlUrl, type RepoRef } from '@railyard/testhealth';

/** Where a message links to: the dashboard's pages, from the server's public address. */
export interface DashboardLinks {
  pr(queueId: string, prNumber: number): string;
  queue(queueId: string): string;
  /** A test's page: Trunk's test_case.html_url, the same the API's test views give. */
  test(repo: RepoRef, testId: string): string;
  /** Trunk's test_case.repository.html_url: the forge's page, or this server's for the local host. */
  repository(repo: RepoRef): string;
}

export const dashboardLinks = (baseUrl: string): DashboardLinks => {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    queue: (queueId) => `${base}/queues/${encodeURIComponent(queueId)}`,
    pr: (queueId, prNumber) => `${base}/queues/${encodeURIComponent(queueId)}/prs/${prNumber}`,
    test: (repo, testId) => testHtmlUrl(repo, testId, base),
    repository: (repo) => repositoryHtmlUrl(repo, base),
  };
};

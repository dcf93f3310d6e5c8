import { routeLabel } from './request-metrics';

describe('routeLabel', () => {
  test('when Octokit passes a route template, then the label is the method and the template', () => {
    expect(routeLabel('GET', '/repos/{owner}/{repo}/pulls/{pull_number}', 'https://api.github.com')).toBe(
      'GET /repos/{owner}/{repo}/pulls/{pull_number}',
    );
    expect(routeLabel('GET', '/repos/{owner}/{repo}/pulls?state=open', 'https://api.github.com')).toBe('GET /repos/{owner}/{repo}/pulls');
  });

  test('when a full URL is followed (a pagination link), then ids and commit hashes are replaced so labels stay few', () => {
    expect(routeLabel('GET', 'https://ghe.example.com/api/v3/repositories/123/pulls?page=2', 'https://ghe.example.com/api/v3')).toBe(
      'GET /repositories/{id}/pulls',
    );
    expect(routeLabel('GET', `https://api.github.com/repos/a/b/commits/${'c'.repeat(40)}/check-runs`, 'https://api.github.com')).toBe(
      'GET /repos/a/b/commits/{sha}/check-runs',
    );
  });
});

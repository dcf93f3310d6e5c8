import { mergeReports } from './statuses';

describe('mergeReports', () => {
  it('when two reporters report one context, then each one’s latest is kept with its reporter, the latest last', () => {
    const statuses = [
      { context: 'ci/test', state: 'success', url: null, reporter: 'github-user:mallory' },
      { context: 'ci/test', state: 'failure', url: 'https://ci/2', reporter: 'github-user:ci-bot' },
      { context: 'ci/test', state: 'pending', url: null, reporter: 'github-user:ci-bot' },
    ];
    expect(mergeReports(statuses, [])).toEqual([
      { context: 'ci/test', state: 'failure', url: 'https://ci/2', reporter: 'github-user:ci-bot' },
      { context: 'ci/test', state: 'success', reporter: 'github-user:mallory' },
    ]);
  });

  it('when a check run and a status share a name, then the check run comes last, so it decides where both count', () => {
    const reports = mergeReports(
      [{ context: 'ci', state: 'failure', url: null, reporter: 'github-user:someone' }],
      [{ name: 'ci', status: 'completed', conclusion: 'success', url: null, reporter: 'github-app:actions' }],
    );
    expect(reports.map((r) => [r.reporter, r.state])).toEqual([
      ['github-user:someone', 'failure'],
      ['github-app:actions', 'success'],
    ]);
  });
});

import { gatingReports, notCountedWhy, reporterPolicy, type ReporterPolicy } from './status-reporters';

const policy: ReporterPolicy = { localChecks: ['test'], statusReporters: { 'ci/deploy': ['deployer', 'github-app:deploy-bot'] } };

describe('notCountedWhy', () => {
  it('when the local CI runs a context, then only the local CI counts for it, whatever the queue names', () => {
    expect(notCountedWhy(policy, 'test', 'local-ci')).toBeUndefined();
    expect(notCountedWhy(policy, 'test', 'token:ci')).toBe('LOCAL_CI_ONLY');
    expect(notCountedWhy(policy, 'test', 'cli')).toBe('LOCAL_CI_ONLY');
    expect(notCountedWhy(policy, 'test', undefined)).toBe('LOCAL_CI_ONLY');
    expect(notCountedWhy({ ...policy, statusReporters: { test: ['ci'] } }, 'test', 'token:ci')).toBe('LOCAL_CI_ONLY');
  });

  it('when the queue names who reports a context, then a named token or reporter id counts and nobody else', () => {
    expect(notCountedWhy(policy, 'ci/deploy', 'token:deployer')).toBeUndefined();
    expect(notCountedWhy(policy, 'ci/deploy', 'github-app:deploy-bot')).toBeUndefined();
    expect(notCountedWhy(policy, 'ci/deploy', 'token:ci')).toBe('REPORTER_NOT_ALLOWED');
    expect(notCountedWhy(policy, 'ci/deploy', 'local-ci')).toBe('REPORTER_NOT_ALLOWED');
    expect(notCountedWhy(policy, 'ci/deploy', undefined)).toBe('REPORTER_NOT_ALLOWED');
  });

  it('when nothing names who reports a context, then anyone counts, an unknown reporter too', () => {
    expect(notCountedWhy(policy, 'lint', 'token:ci')).toBeUndefined();
    expect(notCountedWhy(policy, 'lint', undefined)).toBeUndefined();
    expect(notCountedWhy(reporterPolicy({ statusReporters: {} }, undefined), 'test', 'token:ci')).toBeUndefined();
  });
});

describe('gatingReports', () => {
  it('when a forged success follows the local CI’s failure, then the failure counts and the forgery is set aside with why', () => {
    const sorted = gatingReports(policy, [
      { context: 'test', state: 'failure', reporter: 'local-ci' },
      { context: 'lint', state: 'success', reporter: 'token:ci' },
      { context: 'test', state: 'success', reporter: 'token:ci' },
    ]);
    expect(sorted.counted).toEqual([
      { context: 'test', state: 'failure', reporter: 'local-ci' },
      { context: 'lint', state: 'success', reporter: 'token:ci' },
    ]);
    expect(sorted.notCounted).toEqual([{ context: 'test', state: 'success', reporter: 'token:ci', why: 'LOCAL_CI_ONLY' }]);
  });

  it('when two allowed reporters report one context, then the latest of them counts', () => {
    const sorted = gatingReports(policy, [
      { context: 'ci/deploy', state: 'failure', reporter: 'token:deployer' },
      { context: 'ci/deploy', state: 'success', reporter: 'github-app:deploy-bot' },
    ]);
    expect(sorted.counted).toEqual([{ context: 'ci/deploy', state: 'success', reporter: 'github-app:deploy-bot' }]);
    expect(sorted.notCounted).toEqual([]);
  });
});

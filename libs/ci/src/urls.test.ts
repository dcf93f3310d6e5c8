import { checkFileName, ciLogPath, isLocalCheckUrl, joinUrl, pullRequestPath, testRunIdFrom } from './urls';

const ID = '5df78918-2f4b-4d3c-9f0e-8d1e2a3b4c5d';

describe('testRunIdFrom', () => {
  it('when given an id or the test branch it ran on, then the id comes back', () => {
    expect(testRunIdFrom(ID)).toBe(ID);
    expect(testRunIdFrom(`railyard-merge/pr-12/${ID}`)).toBe(ID);
    expect(testRunIdFrom(`refs/heads/railyard-merge/pr-12/${ID}`)).toBe(ID);
    expect(testRunIdFrom(`${ID}-bisection`)).toBe(`${ID}-bisection`);
  });

  it.each(['', '..', 'a/b', 'x'.repeat(129), 'trunk-merge/pr-1/abc/def', 'id with space', '.hidden'])(
    'when given %j, then it is not an id',
    (input) => {
      expect(testRunIdFrom(input)).toBeNull();
    },
  );
});

describe('check log names', () => {
  it('when a check name holds separators, dots or spaces, then its file name has none of them', () => {
    expect(checkFileName('build')).toBe('build.log');
    expect(checkFileName('ci/unit tests')).toBe('ci%2Funit%20tests.log');
    expect(checkFileName('..')).toBe('%2E%2E.log');
    expect(checkFileName('é')).toBe('%C3%A9.log');
  });

  it('when a log URL is built, then it is recognised as that check of that run and no other', () => {
    const url = joinUrl('http://railyard.test:8080/', ciLogPath(ID, 'ci/unit tests'));
    expect(url).toBe(`http://railyard.test:8080/ci/logs/${ID}/ci%2Funit%20tests`);
    expect(isLocalCheckUrl(url, ID, 'ci/unit tests')).toBe(true);
    expect(isLocalCheckUrl(url, ID, 'unit tests')).toBe(false);
    expect(isLocalCheckUrl(url, 'other-run', 'ci/unit tests')).toBe(false);
    expect(isLocalCheckUrl('https://jenkins.test/job/1', ID, 'build')).toBe(false);
    expect(isLocalCheckUrl('not a url', ID, 'build')).toBe(false);
    expect(isLocalCheckUrl(undefined, ID, 'build')).toBe(false);
  });
});

describe('pullRequestPath', () => {
  it('when asked for a PR, then it has the REST shape with the host first', () => {
    expect(pullRequestPath({ host: 'git.local', owner: 'acme', name: 'widgets' }, 7)).toBe('/repos/git.local/acme/widgets/pulls/7');
  });
});

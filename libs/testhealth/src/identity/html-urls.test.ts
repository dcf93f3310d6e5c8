import { repositoryHtmlUrl, testHtmlUrl } from './html-urls';

const BASE = 'http://railyard.test:8080';
const LOCAL = { host: 'git.local', owner: 'acme', name: 'widgets' };

describe('html urls', () => {
  it('when a repository is on a public forge, then it links there; on the local host, then to this server', () => {
    expect(repositoryHtmlUrl({ host: 'github.com', owner: 'acme', name: 'shop' }, BASE)).toBe('https://github.com/acme/shop');
    expect(repositoryHtmlUrl(LOCAL, BASE)).toBe(`${BASE}/repos/git.local/acme/widgets`);
  });

  it('when a test is linked, then it is its page on this server, whatever the host, its parts encoded', () => {
    expect(testHtmlUrl(LOCAL, 'abc', BASE)).toBe(`${BASE}/repos/git.local/acme/widgets/tests/abc`);
    expect(testHtmlUrl({ host: 'github.com', owner: 'a b', name: 'c' }, 'x/y', BASE)).toBe(`${BASE}/repos/github.com/a%20b/c/tests/x%2Fy`);
  });
});

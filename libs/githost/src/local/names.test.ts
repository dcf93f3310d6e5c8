import { isValidBranchName, isValidRepoRef, parseRepoSpec, repoDirOf } from './names';

describe('repository names', () => {
  it('when every segment is a plain name, then the directory is root/host/owner/name.git', () => {
    expect(repoDirOf('/srv/git', { host: 'github.com', owner: 'my-org', name: 'my.repo_2' })).toBe(
      '/srv/git/github.com/my-org/my.repo_2.git',
    );
  });

  it.each([['..'], ['.'], [''], ['.hidden'], ['-rf'], ['a/b'], ['a\\b'], ['a\0b'], ['/abs'], ['a b'], ['x'.repeat(101)]])(
    'when a segment is %j, then the repository is refused',
    (bad) => {
      expect(isValidRepoRef({ host: bad, owner: 'o', name: 'n' })).toBe(false);
      expect(isValidRepoRef({ host: 'h', owner: bad, name: 'n' })).toBe(false);
      expect(isValidRepoRef({ host: 'h', owner: 'o', name: bad })).toBe(false);
      expect(repoDirOf('/srv/git', { host: 'h', owner: 'o', name: bad })).toBeNull();
    },
  );

  it('when a repo spec has three valid parts, then it parses, and otherwise it does not', () => {
    expect(parseRepoSpec('git.test/acme/widgets')).toEqual({ host: 'git.test', owner: 'acme', name: 'widgets' });
    expect(parseRepoSpec('acme/widgets')).toBeNull();
    expect(parseRepoSpec('a/b/c/d')).toBeNull();
    expect(parseRepoSpec('../acme/widgets')).toBeNull();
  });
});

describe('isValidBranchName', () => {
  it.each([['main'], ['release/1.2'], ['feature/x@y'], ['user/alice/fix-1'], ['railyard-merge/pr-12/3f2a']])(
    'when the name is %j, then it is valid',
    (name) => {
      expect(isValidBranchName(name)).toBe(true);
    },
  );

  it.each([
    [''],
    ['HEAD'],
    ['@'],
    ['-x'],
    ['a..b'],
    ['../x'],
    ['a//b'],
    ['/a'],
    ['a/'],
    ['a.'],
    ['a/.b'],
    ['a.lock'],
    ['a/b.lock/c'],
    ['a@{1}'],
    ['a b'],
    ['a~1'],
    ['a^'],
    ['a:b'],
    ['a?'],
    ['a*'],
    ['a[b'],
    ['a\\b'],
    ['a\0b'],
    ['a\nb'],
  ])('when the name is %j, then it is refused', (name) => {
    expect(isValidBranchName(name)).toBe(false);
  });
});

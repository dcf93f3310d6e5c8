import {
  branchNameProblem,
  formatRepo,
  isObjectId,
  isValidBranchName,
  isValidRepoRef,
  parseRepoSpec,
  repoSegmentProblem,
  MAX_BRANCH_NAME_BYTES,
} from './identifiers';

describe('repository segments (host, owner, name)', () => {
  it.each([['github.com'], ['my-org'], ['my.repo_2'], ['_x'], ['9'], ['a'.repeat(100)]])(
    'when the segment is %j, then it is valid',
    (s) => {
      expect(repoSegmentProblem(s)).toBeUndefined();
      expect(isValidRepoRef({ host: s, owner: s, name: s })).toBe(true);
    },
  );

  it.each([
    ['', 'must not be empty'],
    ['..', 'must start with a letter, a digit or _'],
    ['.', 'must start with a letter, a digit or _'],
    ['.hidden', 'must start with a letter, a digit or _'],
    ['-x', 'must start with a letter, a digit or _'],
    ['a/b', 'may hold only letters, digits, ., _ and -'],
    ['a\\b', 'may hold only letters, digits, ., _ and -'],
    ['a\0b', 'may hold only letters, digits, ., _ and -'],
    ['a b', 'may hold only letters, digits, ., _ and -'],
    [' a', 'must start with a letter, a digit or _'],
    ['héllo', 'may hold only letters, digits, ., _ and -'],
    ['a'.repeat(101), 'must be at most 100 characters'],
  ])('when the segment is %j, then it is refused: %s', (s, problem) => {
    expect(repoSegmentProblem(s)).toBe(problem);
    expect(isValidRepoRef({ host: 'h', owner: 'o', name: s })).toBe(false);
  });

  it('when a spec has three valid parts, then it parses, and otherwise it does not', () => {
    expect(parseRepoSpec('git.test/acme/widgets')).toEqual({ host: 'git.test', owner: 'acme', name: 'widgets' });
    expect(parseRepoSpec('acme/widgets')).toBeNull();
    expect(parseRepoSpec('../acme/widgets')).toBeNull();
  });

  it('when a repository is written as one name, then it is host/owner/name and parses back', () => {
    const repo = { host: 'github.com', owner: 'trunk-io', name: 'trunk' };
    expect(formatRepo(repo)).toBe('github.com/trunk-io/trunk');
    expect(parseRepoSpec(formatRepo(repo))).toEqual(repo);
  });
});

describe('branch names', () => {
  it.each([['main'], ['release/2.0@rc'], ['feature/x@y'], ['user/alice/fix-1'], ['railyard-merge/pr-12/3f2a'], ['ünïcödé/枝'], ['a.b']])(
    'when the name is %j, then it is valid',
    (name) => {
      expect(branchNameProblem(name)).toBeUndefined();
      expect(isValidBranchName(name)).toBe(true);
    },
  );

  it.each([
    ['', 'must not be empty'],
    ['HEAD', 'must not be HEAD'],
    ['@', 'must not be @'],
    ['-x', 'must not start with -'],
    ['a..b', 'must not hold ..'],
    ['../x', 'must not hold ..'],
    ['../../../../etc/passwd', 'must not hold ..'],
    ['a//b', 'must not start or end with /, nor hold //'],
    ['/a', 'must not start or end with /, nor hold //'],
    ['a/', 'must not start or end with /, nor hold //'],
    ['a.', 'must not end with .'],
    ['a/.b', 'no /-separated part may start with .'],
    ['.a', 'no /-separated part may start with .'],
    ['a.lock', 'no /-separated part may end with .lock'],
    ['a/b.lock/c', 'no /-separated part may end with .lock'],
    ['a@{1}', 'must not hold @{'],
    ['a b', 'must not hold control characters, spaces or any of ~ ^ : ? * [ \\'],
    ['a~1', 'must not hold control characters, spaces or any of ~ ^ : ? * [ \\'],
    ['a\\b', 'must not hold control characters, spaces or any of ~ ^ : ? * [ \\'],
    ['a\0b', 'must not hold control characters, spaces or any of ~ ^ : ? * [ \\'],
    ['a\x7fb', 'must not hold control characters, spaces or any of ~ ^ : ? * [ \\'],
    ['a\uD800b', 'must be valid Unicode text'],
    ['x'.repeat(MAX_BRANCH_NAME_BYTES + 1), 'must be at most 255 bytes of UTF-8'],
    ['é'.repeat(128), 'must be at most 255 bytes of UTF-8'],
  ])('when the name is %j, then it is refused: %s', (name, problem) => {
    expect(branchNameProblem(name)).toBe(problem);
    expect(isValidBranchName(name)).toBe(false);
  });

  it('when the value is not a string, then it is not a branch name', () => {
    expect(isValidBranchName(undefined)).toBe(false);
    expect(isValidBranchName(42)).toBe(false);
  });
});

describe('commit ids', () => {
  it('when the id is 40 or 64 lowercase hex digits, then it is a full commit id, and otherwise not', () => {
    expect(isObjectId('a'.repeat(40))).toBe(true);
    expect(isObjectId('0123456789abcdef'.repeat(4))).toBe(true);
    expect(isObjectId('A'.repeat(40))).toBe(false);
    expect(isObjectId('a'.repeat(41))).toBe(false);
    expect(isObjectId('../' + 'a'.repeat(37))).toBe(false);
  });
});

import { commitShaSchema, prNumberSchema, queueKeySchema, repoSchema, targetBranchSchema } from './common';

const REPO = { host: 'git.test', owner: 'acme', name: 'widgets' };
const messages = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  (result.error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);

describe('repoSchema', () => {
  it.each([
    ['name', '..', 'name: repo.name must start with a letter, a digit or _'],
    ['name', '-x', 'name: repo.name must start with a letter, a digit or _'],
    ['owner', 'a/b', 'owner: repo.owner may hold only letters, digits, ., _ and -'],
    ['host', '', 'host: repo.host must not be empty'],
    ['host', ' git.test', 'host: repo.host must start with a letter, a digit or _'],
    ['name', 'wid gets', 'name: repo.name may hold only letters, digits, ., _ and -'],
  ])('when repo.%s is %j, then it is refused and the message names the field', (field, value, message) => {
    expect(messages(repoSchema.safeParse({ ...REPO, [field]: value }))).toEqual([message]);
  });

  it('when every part is a name the git host can serve, then the repository is taken exactly as given', () => {
    expect(repoSchema.parse({ host: 'github.com', owner: 'my-org', name: 'my.repo_2' })).toEqual({
      host: 'github.com',
      owner: 'my-org',
      name: 'my.repo_2',
    });
  });
});

describe('targetBranchSchema', () => {
  it.each([['main'], ['release/2.0@rc'], ['feature/x@y'], ['ünïcödé']])('when the branch is %j, then it is accepted', (branch) => {
    expect(targetBranchSchema.parse(branch)).toBe(branch);
  });

  it.each([
    ['../../../../etc/passwd', 'targetBranch must not hold ..'],
    ['a.lock', 'targetBranch no /-separated part may end with .lock'],
    ['-x', 'targetBranch must not start with -'],
    ['a b', 'targetBranch must not hold control characters, spaces or any of ~ ^ : ? * [ \\'],
    ['HEAD', 'targetBranch must not be HEAD'],
  ])('when the branch is %j, then it is refused: %s', (branch, message) => {
    expect(messages(queueKeySchema.safeParse({ repo: REPO, targetBranch: branch }))).toEqual([`targetBranch: ${message}`]);
  });
});

describe('commitShaSchema', () => {
  it('when a full SHA comes in either case, then it is handed on in lowercase, and a partial one is refused', () => {
    expect(commitShaSchema('sha').parse('ABCDEF0123'.repeat(4))).toBe('abcdef0123'.repeat(4));
    expect(messages(commitShaSchema('sha').safeParse('abc123'))).toEqual([': sha must be a full commit SHA (40 or 64 hex digits)']);
  });
});

describe('prNumberSchema', () => {
  const issues = (min: number, v: unknown): string[] => (prNumberSchema(min).safeParse(v).error?.issues ?? []).map((i) => i.message);

  it.each([
    [0, -3, 'pr.number must be 0 or more'],
    [1, 0, 'pr.number must be 1 or more'],
    [0, 4294967296, 'pr.number must be at most 4294967295'],
    [0, 1.5, 'pr.number must be an integer'],
    [0, 'seven', 'pr.number must be an integer'],
  ])('when the least number is %j and %j is sent, then the message says what is wrong with it', (min, value, message) => {
    expect(issues(min, value)).toEqual([message]);
  });

  it('when the number comes as digits in a string, as the impacted-targets uploader sends it, then it is taken', () => {
    expect(prNumberSchema(1).parse('42')).toBe(42);
  });
});

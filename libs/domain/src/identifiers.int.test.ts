import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { isValidBranchName } from './identifiers';

/** git's own verdict on a branch name (exit 0: a valid branch name). */
const gitAccepts = (name: string): boolean => {
  try {
    execFileSync('git', ['check-ref-format', '--branch', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** Names built from the pieces the rules are about, so both verdicts come up often. */
const branchLike = fc
  .array(
    fc.oneof(
      fc.constantFrom('main', 'release', '2.0', '@', '@{', '.', '..', '.lock', '/', '//', '-', '~', '^', ':', '?', '*', '[', '\\', ' '),
      fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 4 }),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 2 }),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((parts) => parts.join(''))
  .filter((name) => !name.includes('\0'));

describe('branch names against git check-ref-format', () => {
  it('when our rules accept a branch name, then git accepts it too', () => {
    fc.assert(
      fc.property(branchLike, (name) => {
        if (isValidBranchName(name)) expect(gitAccepts(name)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('when git refuses a name, then our rules refuse it too (known cases)', () => {
    for (const name of ['a..b', 'a.lock', 'a/.b', '/a', 'a//b', 'a.', 'a@{1}', 'a b', 'a~1', 'a^', 'a:b', 'a?', 'a*', 'a[b', 'a\\b']) {
      expect(gitAccepts(name)).toBe(false);
      expect(isValidBranchName(name)).toBe(false);
    }
  });
});
